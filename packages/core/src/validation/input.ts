import { isPlainObject, isValidIdentifier, MAX_IDENTIFIER_LENGTH, MODULE_ID_PATTERN } from '@cyrnel/sdk';
import { type CyrnelError, cyrnelError } from '../errors';

function invalid(field: string, message: string): CyrnelError {
  return cyrnelError('invalid_request', `${field} ${message}`, { details: [{ path: field, message }] });
}

/** What an id that `isValidIdentifier` refuses is told it must be. */
export const IDENTIFIER_RULE = `must be a TypeScript identifier (letters, digits, _ and $; not a reserved word) of at most ${MAX_IDENTIFIER_LENGTH} characters`;

/** A service or tool id: a TypeScript identifier (agent code names it as a property: `services.<id>`). */
export function requireIdentifier(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  if (!isValidIdentifier(value)) throw invalid(field, IDENTIFIER_RULE);
  return value;
}

/** A module id (`^[A-Za-z_$][A-Za-z0-9_$-]*$`). */
export function requireModuleId(value: unknown, field = 'moduleId'): string {
  if (typeof value !== 'string' || !MODULE_ID_PATTERN.test(value)) {
    throw invalid(field, `must match ${MODULE_ID_PATTERN}`);
  }
  return value;
}

/** A boolean, strictly. */
export function requireBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(field, 'must be a boolean');
  return value;
}

/** An optional boolean, strictly. */
export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  return value === undefined ? undefined : requireBoolean(value, field);
}

/** A string, optionally non-empty and bounded. */
export function requireString(value: unknown, field: string, options: { nonEmpty?: boolean } = {}): string {
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  if (options.nonEmpty && value.length === 0) throw invalid(field, 'must not be empty');
  return value;
}

/** An optional string. */
export function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : requireString(value, field);
}

/** A plain JSON object. */
export function requireObject(value: unknown, field: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw invalid(field, 'must be a JSON object');
  return value;
}

/** An optional plain JSON object. */
export function optionalObject(value: unknown, field: string): Record<string, unknown> | undefined {
  return value === undefined ? undefined : requireObject(value, field);
}

/**
 * An optional query value from a fixed set; otherwise 400 `invalid query: <field> must be one of …`.
 *
 * @example
 * ```ts
 * optionalOneOf(query.type, MODULE_TYPES, 'type'); // 'adapter' | 'environment' | undefined
 * ```
 */
export function optionalOneOf<T extends string>(
  value: unknown,
  values: readonly T[],
  field: string,
): T | undefined {
  if (value === undefined || (values as readonly unknown[]).includes(value)) return value as T | undefined;
  const message = `must be one of ${values.join(', ')}`;
  throw cyrnelError('invalid_request', `invalid query: ${field} ${message}`, {
    details: [{ path: field, message }],
  });
}

/** The query object of a list call (undefined → empty). */
export function queryObject(value: unknown): Record<string, unknown> {
  return value === undefined ? {} : requireObject(value, 'query');
}
