// A field name: letters, digits, `_`, `$` and `-`, not starting with a digit. Keys with `@`, `.`,
// `/`, `:`, spaces or other characters are e-mail addresses, host names, paths, URLs, sentences.
const FIELD_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
// Ids written as keys: a UUID (with or without dashes), a run of hex digits as long as a short
// hash, or a run of five digits or more (`user_1234567`).
const ID_LIKE = /[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}|[0-9a-f]{16}|[0-9]{5}/i;

/**
 * Whether an object key looks like structure (a field name) rather than data: at most
 * `maxKeyLength` characters of a field name's alphabet, not starting with a digit, no id in it
 * (UUID, long hex or digit run), not `__proto__`, and not holding a secret the host knows
 * (`isSecret`). An object with any other key is observed as a map, so that no value reaches a
 * declaration through a key.
 *
 * @example
 * ```ts
 * isStructuralKey('created_at', 64); // true
 * isStructuralKey('alice@example.com', 64); // false
 * isStructuralKey('123', 64); // false
 * isStructuralKey('0f8fad5b-d9cb-469f-a165-70867728950e', 64); // false
 * ```
 */
export function isStructuralKey(
  key: string,
  maxKeyLength: number,
  isSecret?: (key: string) => boolean,
): boolean {
  if (key.length === 0 || key.length > maxKeyLength || key === '__proto__') return false;
  if (!FIELD_NAME.test(key) || ID_LIKE.test(key)) return false;
  return !isSecret?.(key);
}
