import { isPlainObject } from '@cyrnel/sdk';
import type { BodySchema, FieldSpec, FieldType, ValidationIssue } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';

function typeIssue(value: unknown, spec: FieldSpec): string | undefined {
  if (value === null) return spec.nullable ? undefined : `must be ${describe(spec.type)}, not null`;
  switch (spec.type) {
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      if (spec.maxLength !== undefined && value.length > spec.maxLength) {
        return `must be at most ${spec.maxLength} characters`;
      }
      if (spec.enum !== undefined && !spec.enum.includes(value)) {
        return `must be one of ${spec.enum.map((option) => JSON.stringify(option)).join(', ')}`;
      }
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean (true or false)';
    case 'object':
      return isPlainObject(value) ? undefined : 'must be a JSON object';
    case 'array':
      return Array.isArray(value) ? undefined : 'must be an array';
    case 'positiveInteger':
      return Number.isSafeInteger(value) && (value as number) > 0 ? undefined : 'must be a positive integer';
  }
}

function describe(type: FieldType): string {
  return type === 'positiveInteger' ? 'a positive integer' : type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * Validate a request body against a flat schema: it must be an object, unknown fields are
 * refused, wrong types are reported by field name (400 `invalid_request` with `details`). The host
 * APIs check their request objects with it, so every front end gets the same answers; the
 * schemas of the HTTP bodies are those of the route table (`@cyrnel/sdk/api`).
 *
 * @example
 * ```ts
 * validateBody({ enabled: 'yes' }, ENABLED_BODY); // ENABLED_BODY of @cyrnel/sdk/api
 * // 400 invalid_request: invalid request body: enabled must be a boolean (true or false)
 * ```
 */
export function validateBody<T>(body: unknown, schema: BodySchema): T {
  if (!isPlainObject(body)) {
    throw cyrnelError('invalid_request', 'the request body must be a JSON object', {
      details: [{ path: '', message: 'must be an object' }],
    });
  }
  const issues: ValidationIssue[] = [];
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(schema, key)) issues.push({ path: key, message: 'unknown field' });
  }
  for (const [key, spec] of Object.entries(schema)) {
    const value = body[key];
    if (value === undefined) {
      if (spec.required) issues.push({ path: key, message: 'is required' });
      continue;
    }
    const problem = typeIssue(value, spec);
    if (problem) issues.push({ path: key, message: problem });
  }
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path || 'body'} ${issue.message}`).join('; ');
    throw cyrnelError('invalid_request', `invalid request body: ${summary}`, { details: issues });
  }
  return body as T;
}
