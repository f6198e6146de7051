import { MAX_IDENTIFIER_LENGTH } from '@cyrnel/sdk';

/** Characters of an over-long called name that its record keeps. */
const SHOWN_NAME = 128;

/**
 * Whether a service or tool name a program called is longer than any id can be (see
 * `MAX_IDENTIFIER_LENGTH`): it names nothing installed, so nothing need be asked or kept about it.
 */
export function isOverlongName(name: unknown): boolean {
  return typeof name === 'string' && name.length > MAX_IDENTIFIER_LENGTH;
}

/**
 * A called name as records, journal lines and errors keep it: an over-long one cut to its first
 * 128 characters and `…` (which no id contains, so it never names a real tool), any other as it is.
 *
 * @example
 * ```ts
 * shownName('x'.repeat(1_000_000)); // 'xxx…x…' (129 characters)
 * shownName('getUser'); // 'getUser'
 * ```
 */
export function shownName(name: unknown): unknown {
  return typeof name === 'string' && isOverlongName(name) ? `${name.slice(0, SHOWN_NAME)}…` : name;
}
