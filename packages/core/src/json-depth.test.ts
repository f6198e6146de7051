import { describe, expect, it } from 'vitest';
import { jsonTextDepthExceeds } from './json-depth';

describe('jsonTextDepthExceeds', () => {
  it('counts nested arrays and objects, not brackets inside strings', () => {
    expect(jsonTextDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonTextDepthExceeds('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(jsonTextDepthExceeds('{"a":"[[[[{{{{\\"[["}', 1)).toBe(false);
    expect(jsonTextDepthExceeds('[1,[2],[3],{"x":[]}]', 3)).toBe(false);
    expect(jsonTextDepthExceeds('[1,[2],[3],{"x":[]}]', 2)).toBe(true);
    expect(jsonTextDepthExceeds('7', 0)).toBe(false);
  });

  it('answers for text nested far deeper than the stack allows', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    expect(jsonTextDepthExceeds(deep, 64)).toBe(true);
  });
});
