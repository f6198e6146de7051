import { describe, expect, it } from 'vitest';
import { assertSafeBind, isLoopbackHost } from './assert-safe-bind';

describe('assertSafeBind', () => {
  it('allows loopback without a key', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) {
      expect(isLoopbackHost(host)).toBe(true);
      expect(() => assertSafeBind(host, undefined, false)).not.toThrow();
    }
  });

  it('refuses other addresses without a key unless insecure', () => {
    expect(() => assertSafeBind('0.0.0.0', undefined, false)).toThrow(/refusing to bind 0\.0\.0\.0/);
    expect(() => assertSafeBind('::', '', false)).toThrow(/CYRNEL_API_KEY/);
    expect(() => assertSafeBind('0.0.0.0', 'key', false)).not.toThrow();
    expect(() => assertSafeBind('0.0.0.0', undefined, true)).not.toThrow();
  });

  it('allows other addresses once a key is stored, and says how to get one', () => {
    expect(() => assertSafeBind('0.0.0.0', undefined, false, 1)).not.toThrow();
    expect(() => assertSafeBind('0.0.0.0', undefined, false, 0)).toThrow(/POST \/keys/);
  });
});
