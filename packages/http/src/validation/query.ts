import { cyrnelError } from '@cyrnel/core';
import {
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  type QueryParamSpec,
  type RouteQuery,
  type ValidationIssue,
} from '@cyrnel/sdk/api';

/**
 * Parse a URL's query as a route declares it. By default strictly: unknown or repeated
 * parameters, booleans other than `true`/`false`, switches other than those and `1`/`0`, whole
 * numbers that are not, and bad limits are 400 (what a value means, e.g. an enum, the host
 * checks); `limit` defaults to 20 and is clamped to 100. A `list` parameter may
 * repeat and is split at commas; a route whose other parameters are `ignored` leaves them alone.
 */
export function parseQuery<T>(url: string, query: RouteQuery<unknown>): T {
  const params = new URL(url).searchParams;
  const schema = query.params;
  const strict = query.others !== 'ignored';
  const issues: ValidationIssue[] = [];
  const result: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [key, raw] of params) {
    const spec = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (!spec) {
      if (strict) issues.push({ path: key, message: 'unknown query parameter' });
      continue;
    }
    if (spec.type === 'list') {
      result[key] = [...((result[key] as string[] | undefined) ?? []), ...raw.split(',')];
      continue;
    }
    if (seen.has(key)) {
      issues.push({ path: key, message: 'given more than once' });
      continue;
    }
    seen.add(key);
    const parsed = parseValue(raw, spec);
    if (parsed.problem) issues.push({ path: key, message: parsed.problem });
    else result[key] = parsed.value;
  }
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path} ${issue.message}`).join('; ');
    throw cyrnelError('invalid_request', `invalid query: ${summary}`, { details: issues });
  }
  if ('limit' in schema && result.limit === undefined) result.limit = DEFAULT_PAGE_LIMIT;
  return result as T;
}

function parseValue(
  raw: string,
  spec: Exclude<QueryParamSpec, { type: 'list' }>,
): { value?: unknown; problem?: string } {
  switch (spec.type) {
    case 'string':
      return raw === '' ? { problem: 'must not be empty' } : { value: raw };
    case 'boolean':
      if (raw === 'true') return { value: true };
      if (raw === 'false') return { value: false };
      return { problem: 'must be true or false' };
    case 'limit': {
      if (!/^\d+$/.test(raw) || Number(raw) < 1) return { problem: 'must be a positive integer' };
      return { value: Math.min(Number(raw), MAX_PAGE_LIMIT) };
    }
    case 'integer':
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
        return { problem: 'must be a whole number' };
      return { value: Number(raw) };
    case 'switch':
      if (raw === 'true' || raw === '1') return { value: true };
      if (raw === 'false' || raw === '0') return { value: false };
      return { problem: 'must be true, false, 1 or 0' };
  }
}
