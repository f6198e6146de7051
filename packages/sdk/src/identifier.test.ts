import { describe, expect, it } from 'vitest';
import {
  isOverlongName,
  isValidIdentifier,
  MAX_IDENTIFIER_LENGTH,
  RESERVED_WORDS,
  toIdentifier,
} from './identifier';

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

  it(`refuses ids longer than ${MAX_IDENTIFIER_LENGTH} characters`, () => {
    expect(isValidIdentifier('a'.repeat(MAX_IDENTIFIER_LENGTH))).toBe(true);
    expect(isValidIdentifier('a'.repeat(MAX_IDENTIFIER_LENGTH + 1))).toBe(false);
    expect(isValidIdentifier('a'.repeat(1_000_000))).toBe(false);
  });

  it('refuses non-strings', () => {
    for (const value of [undefined, null, 42, {}, ['a']]) expect(isValidIdentifier(value)).toBe(false);
  });
});

describe('isOverlongName', () => {
  it(`is true only of strings longer than ${MAX_IDENTIFIER_LENGTH} characters`, () => {
    expect(isOverlongName('a'.repeat(MAX_IDENTIFIER_LENGTH))).toBe(false);
    expect(isOverlongName('a'.repeat(MAX_IDENTIFIER_LENGTH + 1))).toBe(true);
    expect(isOverlongName('x'.repeat(1_000_000))).toBe(true);
  });

  it('leaves what is not a string to the gate, which refuses it as before', () => {
    for (const name of [undefined, null, 7, { length: 10_000 }]) expect(isOverlongName(name)).toBe(false);
  });
});

describe('toIdentifier', () => {
  it('replaces, collapses and trims characters outside [A-Za-z0-9_$]', () => {
    expect(toIdentifier('get-user.by id')).toBe('get_user_by_id');
    expect(toIdentifier('--a..b--')).toBe('a_b');
    expect(toIdentifier('$get')).toBe('$get');
  });

  it('prefixes a leading digit and suffixes reserved words', () => {
    expect(toIdentifier('2fa')).toBe('_2fa');
    expect(toIdentifier('delete')).toBe('delete_');
    expect(toIdentifier('__proto__')).toBe('proto');
  });

  it('falls back when nothing is left, and answers an identifier or empty', () => {
    expect(toIdentifier('***', 'post /pets')).toBe('post_pets');
    expect(toIdentifier('日本')).toBe('');
    for (const raw of ['a b', '9', 'class', 'x-y-z', '$'])
      expect(isValidIdentifier(toIdentifier(raw))).toBe(true);
  });
});
