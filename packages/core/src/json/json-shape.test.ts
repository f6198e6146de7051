import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, jsonShapeExceeds } from './json-shape';

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

describe('jsonShapeExceeds', () => {
  const limits = { maxDepth: 64, maxElements: 5 };

  it('counts containers and comma-separated values, not what strings hold', () => {
    expect(jsonShapeExceeds('[1,2,3,4,5]', limits)).toBeUndefined(); // 1 array + 4 commas
    expect(jsonShapeExceeds('[1,2,3,4,5,6]', limits)).toBe('elements');
    expect(jsonShapeExceeds('{"a":[{},{}]}', limits)).toBeUndefined();
    expect(jsonShapeExceeds('{"a":[{},{},{}]}', limits)).toBe('elements');
    expect(jsonShapeExceeds(`{"definition":"${',[{'.repeat(10_000)}"}`, limits)).toBeUndefined();
  });

  it('answers the limit met first', () => {
    expect(jsonShapeExceeds('[[[', { maxDepth: 2, maxElements: 100 })).toBe('depth');
    expect(jsonShapeExceeds('[[[', { maxDepth: 100, maxElements: 2 })).toBe('elements');
  });

  it('stops a million tiny values before JSON.parse would see them', () => {
    expect(
      jsonShapeExceeds(`[${Array(1_000_000).fill('0').join(',')}]`, { maxDepth: 64, maxElements: 50_000 }),
    ).toBe('elements');
  });
});

describe('jsonDepthExceeds on mixed text', () => {
  it('counts nested arrays and objects, not brackets inside strings', () => {
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(jsonDepthExceeds('{"a":"[[[[{{{{\\"[["}', 1)).toBe(false);
    expect(jsonDepthExceeds('[1,[2],[3],{"x":[]}]', 3)).toBe(false);
    expect(jsonDepthExceeds('[1,[2],[3],{"x":[]}]', 2)).toBe(true);
    expect(jsonDepthExceeds('7', 0)).toBe(false);
  });
});
