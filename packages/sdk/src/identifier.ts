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

/** The identifier pattern of SPEC §3: ASCII letters, digits, `_` and `$`, not starting with a digit. */
export const IDENTIFIER_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * True when `value` can be used as a service or tool id: it matches
 * {@link IDENTIFIER_PATTERN} and is not a reserved word.
 *
 * @example
 * ```ts
 * isValidIdentifier('listPets'); // true
 * isValidIdentifier('delete');   // false
 * ```
 */
export function isValidIdentifier(value: unknown): value is string {
  return typeof value === 'string' && IDENTIFIER_PATTERN.test(value) && !RESERVED_WORDS.has(value);
}
