/**
 * Whether `value` is a non-null object that is not an array — a JSON object once parsed. Every
 * package narrows `unknown` JSON with this one guard.
 *
 * @example
 * ```ts
 * isPlainObject({ a: 1 }); // true
 * isPlainObject([1]); // false
 * isPlainObject(null); // false
 * ```
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
