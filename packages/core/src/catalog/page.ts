import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';

/**
 * Encode a position in a stable order as an opaque cursor (base64url of a JSON array of strings).
 * Clients must treat it as opaque; the encoding is only stable within one cyrnel version.
 */
export function encodeCursor(position: readonly string[]): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** Decode a cursor made by {@link encodeCursor} holding `size` strings; 400 `invalid_request` on anything else. */
export function decodeCursor(cursor: unknown, size: number): string[] {
  const invalid = () =>
    cyrnelError('invalid_request', 'cursor is invalid', {
      details: [{ path: 'cursor', message: 'invalid cursor' }],
    });
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 4096) throw invalid();
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(position) || position.length !== size || !position.every((p) => typeof p === 'string')) {
    throw invalid();
  }
  return position as string[];
}

/** The page size of a list query: default 20, clamped to 100; 0, negatives and non-integers refused. */
export function pageLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_PAGE_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw cyrnelError('invalid_request', 'limit must be a positive integer', {
      details: [{ path: 'limit', message: 'must be a positive integer' }],
    });
  }
  return Math.min(limit, MAX_PAGE_LIMIT);
}

/** Cut `rows` (fetched with one extra) into a page; `position` gives the cursor of the last item. */
export function toPage<Row, Item>(
  rows: readonly Row[],
  limit: number,
  position: (row: Row) => readonly string[],
  toItem: (row: Row) => Item,
): { items: Item[]; nextCursor: string | null; hasMore: boolean } {
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toItem),
    nextCursor: hasMore && last !== undefined ? encodeCursor(position(last)) : null,
    hasMore,
  };
}
