import { describe, expect, it } from 'vitest';
import { isPlainObject } from './plain-object';

describe('isPlainObject', () => {
  it('accepts objects and refuses arrays, null and primitives', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject('x')).toBe(false);
    expect(isPlainObject(1)).toBe(false);
  });
});
