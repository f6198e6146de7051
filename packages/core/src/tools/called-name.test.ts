import { MAX_IDENTIFIER_LENGTH } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { isOverlongName, shownName } from './called-name';

describe('called names', () => {
  it('cuts only names longer than any id, to 128 characters and …', () => {
    const longest = 'a'.repeat(MAX_IDENTIFIER_LENGTH);
    expect(isOverlongName(longest)).toBe(false);
    expect(shownName(longest)).toBe(longest);
    expect(isOverlongName(`${longest}a`)).toBe(true);
    expect(shownName(`${longest}a`)).toBe(`${'a'.repeat(128)}…`);
    expect(shownName('x'.repeat(1_000_000))).toHaveLength(129);
  });

  it('leaves what is not a string to the gate, which refuses it as before', () => {
    for (const name of [undefined, null, 7, { length: 10_000 }]) {
      expect(isOverlongName(name)).toBe(false);
      expect(shownName(name)).toBe(name);
    }
  });
});
