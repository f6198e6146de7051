import { cyrnelError } from '@cyrnel/core';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type ValidationIssue } from '@cyrnel/sdk/api';

/** How one query parameter is parsed. */
export type QueryParamSpec =
  | { readonly type: 'string' }
  | { readonly type: 'boolean' }
  | { readonly type: 'limit' };

/** Every query parameter a route accepts; any other one is refused. */
export type QuerySchema = Readonly<Record<string, QueryParamSpec>>;

/** The paging parameters of every list route. */
export const PAGE_QUERY: QuerySchema = { limit: { type: 'limit' }, cursor: { type: 'string' } };

/**
 * Parse a URL's query strictly: unknown or repeated parameters, booleans other than
 * `true`/`false` and bad limits are 400 (what a value means, e.g. an enum, the host checks); `limit` defaults to 20 and is
 * clamped to 100 (SPEC §6).
 */
export function parseQuery<T>(url: string, schema: QuerySchema): T {
  const params = new URL(url).searchParams;
  const issues: ValidationIssue[] = [];
  const result: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [key, raw] of params) {
    const spec = schema[key];
    if (!spec || !Object.hasOwn(schema, key)) {
      issues.push({ path: key, message: 'unknown query parameter' });
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

function parseValue(raw: string, spec: QueryParamSpec): { value?: unknown; problem?: string } {
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
  }
}
