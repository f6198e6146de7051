import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from './json-depth';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('jsonDepthExceeds', () => {
  it('counts arrays and objects alike, scalars as no level', () => {
    expect(jsonDepthExceeds('1', 0)).toBe(false);
    expect(jsonDepthExceeds('"x"', 0)).toBe(false);
    expect(jsonDepthExceeds('{}', 0)).toBe(true);
    expect(jsonDepthExceeds('{"a":[{"b":[]}]}', 4)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[]}]}', 3)).toBe(true);
  });

  it('measures siblings by their own depth, not their sum', () => {
    expect(jsonDepthExceeds(`[${Array(1000).fill('[[]]').join(',')}]`, 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeds(`{"a":"${'[{'.repeat(100)}"}`, 1)).toBe(false);
    expect(jsonDepthExceeds('["\\"[[[[", "\\\\"]', 1)).toBe(false);
    expect(jsonDepthExceeds('["\\\\", [[]]]', 2)).toBe(true);
    // An escaped backslash, then an escaped quote: the string goes on past it.
    expect(jsonDepthExceeds('["\\\\\\"[[[["]', 1)).toBe(false);
    expect(jsonDepthExceeds('["never closed [[[[', 1)).toBe(false);
  });

  it('scans a million levels without recursion', () => {
    expect(jsonDepthExceeds(nested(1_000_000), 64)).toBe(true);
    expect(jsonDepthExceeds(nested(64), 64)).toBe(false);
    expect(jsonDepthExceeds(nested(65), 64)).toBe(true);
  });
});
