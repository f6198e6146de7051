import { MAX_IDENTIFIER_LENGTH } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { shownName } from './called-name';

// Which names are over-long is the SDK's `isOverlongName` (tested there); this is what records keep.
describe('called names', () => {
  it('cuts only names longer than any id, to 128 characters and …', () => {
    const longest = 'a'.repeat(MAX_IDENTIFIER_LENGTH);
    expect(shownName(longest)).toBe(longest);
    expect(shownName(`${longest}a`)).toBe(`${'a'.repeat(128)}…`);
    expect(shownName('x'.repeat(1_000_000))).toHaveLength(129);
  });

  it('leaves what is not a string to the gate, which refuses it as before', () => {
    for (const name of [undefined, null, 7, { length: 10_000 }]) expect(shownName(name)).toBe(name);
  });
});
