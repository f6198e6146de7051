import { isOverlongName } from '@cyrnel/sdk';

/** Characters of an over-long called name that its record keeps. */
const SHOWN_NAME = 128;

/**
 * A called name as records, journal lines and errors keep it: one longer than any id
 * (`isOverlongName`) cut to its first 128 characters and `…` (which no id contains, so it never
 * names a real tool), any other as it is.
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
