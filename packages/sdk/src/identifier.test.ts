import { describe, expect, it } from 'vitest';
import { isValidIdentifier, RESERVED_WORDS } from './identifier';

describe('isValidIdentifier', () => {
  it('accepts TypeScript identifiers', () => {
    for (const id of ['listPets', '_private', '$dollar', 'a1', 'meta_root', 'A', 'constructor']) {
      expect(isValidIdentifier(id)).toBe(true);
    }
  });

  it('refuses what is not an identifier', () => {
    for (const id of ['', '1abc', 'meta/root', 'kebab-case', 'with space', 'ünïcode', 'a.b', 'a\n']) {
      expect(isValidIdentifier(id)).toBe(false);
    }
  });

  it('refuses every reserved word and __proto__', () => {
    for (const word of ['delete', 'import', 'class', 'await', 'yield', 'let', 'enum', 'null', '__proto__']) {
      expect(RESERVED_WORDS.has(word)).toBe(true);
      expect(isValidIdentifier(word)).toBe(false);
    }
  });

  it('refuses non-strings', () => {
    for (const value of [undefined, null, 42, {}, ['a']]) expect(isValidIdentifier(value)).toBe(false);
  });
});
