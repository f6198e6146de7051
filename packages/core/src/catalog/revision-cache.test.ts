import { describe, expect, it } from 'vitest';
import { revisionCache } from './revision-cache';

describe('revisionCache', () => {
  it('reads a key once per revision, keeps only what `keep` allows, and never a value read across a write', async () => {
    let revision = 0;
    let reads = 0;
    const cache = revisionCache<number>(
      () => revision,
      (value) => value > 0,
    );
    const read = (value: number) => async () => {
      reads++;
      return value;
    };
    expect([await cache('a', read(1)), await cache('a', read(2))]).toEqual([1, 1]);
    expect(reads).toBe(1);
    // Refused by `keep`: read every time.
    await cache('zero', read(0));
    await cache('zero', read(0));
    expect(reads).toBe(3);
    // The revision moved: read again.
    revision++;
    expect(await cache('a', read(3))).toBe(3);
    // A write finished while it was read: answered, not kept.
    const during = await cache('b', async () => {
      revision++;
      return 4;
    });
    expect(during).toBe(4);
    expect(await cache('b', read(5))).toBe(5);
    // A key longer than 256 characters (sandbox code can name anything) is never kept.
    const long = 'x'.repeat(257);
    reads = 0;
    await cache(long, read(6));
    await cache(long, read(6));
    expect(reads).toBe(2);
  });

  it('reads every time without a revision', async () => {
    let reads = 0;
    const cache = revisionCache<number>(undefined, () => true);
    await cache('a', async () => ++reads);
    await cache('a', async () => ++reads);
    expect(reads).toBe(2);
  });
});
