import { isPlainObject } from '@cyrnel/sdk';

/** Split an RFC 6901 JSON Pointer into unescaped tokens; undefined when it is malformed. */
export function parseJsonPointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    // A `~` must be followed by 0 or 1; decode ~1 before ~0 so `~01` stays `~1` (RFC 6901 §4).
    if (/~[^01]|~$/.test(raw)) return undefined;
    tokens.push(raw.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  return tokens;
}

/** Escape one token for use in a JSON Pointer. */
export function escapeJsonPointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Pointers of every value set in `value` (leaves: anything that is not a non-empty object),
 * sorted. Used to say which secrets are present without revealing them.
 */
export function presentPointers(value: Record<string, unknown>): string[] {
  const pointers: string[] = [];
  const walk = (node: Record<string, unknown>, prefix: string): void => {
    for (const [key, child] of Object.entries(node)) {
      const pointer = `${prefix}/${escapeJsonPointerToken(key)}`;
      if (child === undefined) continue;
      if (isPlainObject(child) && Object.keys(child).length > 0) walk(child, pointer);
      else pointers.push(pointer);
    }
  };
  walk(value, '');
  return pointers.sort();
}
