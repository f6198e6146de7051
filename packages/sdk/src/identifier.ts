/**
 * Words a TypeScript identifier may not be: ECMAScript reserved words, strict-mode reserved
 * words, `await` (reserved in modules and async bodies) and the literals. `__proto__` is
 * refused too, because ids become object keys (`cyrnel.services.<id>`).
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'implements',
  'interface',
  'let',
  'package',
  'private',
  'protected',
  'public',
  'static',
  'yield',
  'await',
  '__proto__',
]);

/**
 * Pattern of service and tool ids: ASCII letters, digits, `_` and `$`, not starting with a digit,
 * so sandbox code can write `cyrnel.services.<id>.tools.<id>` without brackets.
 */
export const IDENTIFIER_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Longest service or tool id, in characters. Far above any real one (GitHub's longest operation
 * is under 80), and what bounds the names a program calls: one longer cannot be installed, so a
 * call naming it is refused without its name being kept whole.
 */
export const MAX_IDENTIFIER_LENGTH = 512;

/**
 * True when `name` is a string longer than any id can be ({@link MAX_IDENTIFIER_LENGTH}): a
 * service or tool name a program called that names nothing installed, so nothing need be asked,
 * carried whole or kept about it.
 *
 * @example
 * ```ts
 * isOverlongName('x'.repeat(513)); // true
 * isOverlongName('listPets');      // false
 * ```
 */
export function isOverlongName(name: unknown): boolean {
  return typeof name === 'string' && name.length > MAX_IDENTIFIER_LENGTH;
}

/**
 * True when `value` can be used as a service or tool id: it matches
 * {@link IDENTIFIER_PATTERN}, is not a reserved word, and has at most
 * {@link MAX_IDENTIFIER_LENGTH} characters.
 *
 * @example
 * ```ts
 * isValidIdentifier('listPets'); // true
 * isValidIdentifier('delete');   // false
 * ```
 */
export function isValidIdentifier(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= MAX_IDENTIFIER_LENGTH &&
    IDENTIFIER_PATTERN.test(value) &&
    !RESERVED_WORDS.has(value)
  );
}

/**
 * A name from elsewhere (an operation id, an MCP tool name) made an identifier: characters
 * outside `[A-Za-z0-9_$]` become `_`, runs of `_` collapse, `_` is trimmed from both ends, a
 * leading digit gets a `_` prefix, a reserved word a trailing `_`. Answers `fallback` (made an
 * identifier the same way) when nothing is left, and `''` when that is empty too.
 *
 * @example
 * ```ts
 * toIdentifier('get-user.by id');   // 'get_user_by_id'
 * toIdentifier('2fa');              // '_2fa'
 * toIdentifier('delete');           // 'delete_'
 * toIdentifier('***', 'post /pets'); // 'post_pets'
 * ```
 */
export function toIdentifier(raw: string, fallback = ''): string {
  let id = sanitize(raw);
  if (id === '') id = sanitize(fallback);
  if (id === '') return '';
  if (/^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED_WORDS.has(id)) id = `${id}_`;
  return id;
}

function sanitize(raw: string): string {
  return raw
    .replace(/[^A-Za-z0-9_$]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
}
