import { describe, expect, it } from 'vitest';
import { argumentShape, MAX_SHAPE_CHARS } from './argument-shape';

describe('argumentShape', () => {
  it('keeps keys and value types, never a value', () => {
    const shape = argumentShape({
      path: { id: 4711 },
      query: { q: 'secret words', tags: ['alpha', 'beta'], exact: true, none: null },
      body: [],
    });
    expect(shape).toBe(
      '{"path":{"id":"number"},"query":{"q":"string","tags":["string"],"exact":"boolean","none":"null"},"body":[]}',
    );
    for (const value of ['4711', 'secret', 'alpha', 'beta']) expect(shape).not.toContain(value);
  });

  it('turns an object whose keys look like data into a map, so no value passes through a key', () => {
    const shape = argumentShape({
      by: { 'ann@example.com': 1, 'bob@example.com': 2 },
      ids: { user_1234567: 'x' },
    });
    expect(shape).toBe('{"by":{"<key>":"number"},"ids":{"<key>":"string"}}');
    expect(shape).not.toContain('example.com');
  });

  it('is bounded in depth, keys and length', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 20; level++) deep = { next: deep };
    expect(argumentShape(deep)).toContain('"…"');
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, n) => [`f${n}`, n]));
    expect(argumentShape(wide)).toContain('"…":"');
    const long = Object.fromEntries(
      Array.from({ length: 30 }, (_, n) => [`k${'a'.repeat(60)}${String.fromCharCode(97 + n)}`, { x: 1 }]),
    );
    expect(argumentShape(long).length).toBeLessThanOrEqual(MAX_SHAPE_CHARS);
  });
});
