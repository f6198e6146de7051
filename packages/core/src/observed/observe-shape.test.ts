import { describe, expect, it } from 'vitest';
import { boundShape, mergeShapes } from './merge-shapes';
import { observeShape } from './observe-shape';
import { OBSERVED_LIMITS } from './observed-limits';
import { type ObservedShape, shapeKind } from './observed-shape';
import { isStructuralKey } from './shape-keys';

const observe = (value: unknown, isSecret?: (key: string) => boolean) =>
  observeShape(value, { limits: OBSERVED_LIMITS, ...(isSecret ? { isSecret } : {}) });

/** Every node of a shape, with its container depth. */
function nodes(shape: ObservedShape, depth = 0): { shape: ObservedShape; depth: number }[] {
  const here = [{ shape, depth }];
  if (shape.anyOf) return [...here, ...shape.anyOf.flatMap((variant) => nodes(variant, depth))];
  if (shape.type === 'array') return shape.items ? [...here, ...nodes(shape.items, depth + 1)] : here;
  if (shape.type === 'object') {
    const values = shape.properties
      ? Object.values(shape.properties)
      : shape.additionalProperties
        ? [shape.additionalProperties]
        : [];
    return [...here, ...values.flatMap((value) => nodes(value, depth + 1))];
  }
  return here;
}

describe('observeShape', () => {
  it('says types only: no string, number or key of data reaches the shape', () => {
    const shape = observe({
      id: 734_291_558,
      title: 'zebra-quartz-7781 secret title',
      tags: ['plum-velvet-3392', 'x'],
      owner: { login: 'octo-kumquat-4410', admin: true, note: null },
      byEmail: { 'pearl.finch@example.com': 1 },
      byId: { '0f8fad5b-d9cb-469f-a165-70867728950e': { seen: 3 }, '42': { seen: 4 } },
    }) as ObservedShape;
    const text = JSON.stringify(shape);
    for (const value of ['734291558', 'zebra', 'plum', 'kumquat', 'pearl', 'finch', '0f8fad5b', '"42"'])
      expect(text).not.toContain(value);
    expect(shape).toEqual({
      type: 'object',
      properties: {
        id: { type: 'number' },
        title: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        owner: {
          type: 'object',
          properties: { login: { type: 'string' }, admin: { type: 'boolean' }, note: { type: 'null' } },
          required: ['login', 'admin', 'note'],
        },
        byEmail: { type: 'object', additionalProperties: { type: 'number' } },
        byId: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: { seen: { type: 'number' } },
            required: ['seen'],
          },
        },
      },
      required: ['id', 'title', 'tags', 'owner', 'byEmail', 'byId'],
    });
    expect(text).not.toContain('"enum"');
  });

  it('tells structural keys from data ones', () => {
    for (const key of ['created_at', 'htmlUrl', '$ref', 'x-rate-limit', 'id2'])
      expect(isStructuralKey(key, 64)).toBe(true);
    for (const key of [
      '',
      '123',
      'alice@example.com',
      'example.com',
      '/repos/a',
      'two words',
      '2024-01-01',
      'user_1234567',
      'deadbeefdeadbeef0',
      '0f8fad5bd9cb469fa16570867728950e',
      '__proto__',
      'k'.repeat(65),
    ])
      expect(isStructuralKey(key, 64)).toBe(false);
    // A key holding a secret the host knows makes its object a map.
    expect(observe({ hunter22: 1 }, (key) => key.includes('hunter22'))).toEqual({
      type: 'object',
      additionalProperties: { type: 'number' },
    });
  });

  it('stays within its bounds for deep, wide and many-keyed answers', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = { next: deep, list: [deep] };
    const wide = Array.from({ length: 1_000_000 }, (_, index) => ({ index, name: `n${index}` }));
    const manyKeys = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`field_${i}`, i]));
    const mixed = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`k${i}`, i % 3 === 0 ? { [`f${i}`]: [i] } : `v${i}`]),
    );
    for (const value of [deep, wide, manyKeys, mixed, [wide, wide, [manyKeys]]]) {
      const shape = observe(value);
      if (shape === undefined) continue;
      const bounded = boundShape(shape, OBSERVED_LIMITS);
      const all = nodes(bounded);
      expect(all.length).toBeLessThanOrEqual(OBSERVED_LIMITS.maxNodes);
      expect(Math.max(...all.map((node) => node.depth))).toBeLessThanOrEqual(OBSERVED_LIMITS.maxDepth);
      for (const { shape: node } of all) {
        expect((node.anyOf ?? []).length).toBeLessThanOrEqual(OBSERVED_LIMITS.maxVariants);
        if (node.type === 'object')
          expect(Object.keys(node.properties ?? {}).length).toBeLessThanOrEqual(
            OBSERVED_LIMITS.maxProperties,
          );
      }
    }
    expect(observe(manyKeys)).toEqual({ type: 'object', additionalProperties: { type: 'number' } });
    expect(observe(wide)).toEqual({
      type: 'array',
      items: {
        type: 'object',
        properties: { index: { type: 'number' }, name: { type: 'string' } },
        required: ['index', 'name'],
      },
    });
    // Nothing deeper than the limit is looked at: `{}` there.
    const cut = nodes(observe(deep) as ObservedShape).filter((node) => shapeKind(node.shape) === 'any');
    expect(cut.length).toBeGreaterThan(0);
  });

  it('samples arrays, first and last elements among them, and tries smaller samples past its budget', () => {
    const list = [{ a: 1 }, ...Array.from({ length: 98 }, () => ({ a: 2 })), { a: 3, last: true }];
    expect(observe(list)).toEqual({
      type: 'array',
      items: {
        type: 'object',
        properties: { a: { type: 'number' }, last: { type: 'boolean' } },
        required: ['a'],
      },
    });
    // 200 elements of 60 fields of 10-element arrays: past 1,000 visits with 8 or 2 per array, not with 1.
    const heavy = Array.from({ length: 200 }, () =>
      Object.fromEntries(
        Array.from({ length: 60 }, (_, i) => [`f${i}`, Array.from({ length: 10 }, () => i)]),
      ),
    );
    const shape = observe(heavy) as ObservedShape;
    expect(shape.type).toBe('array');
  });

  it('does not observe what is not JSON', () => {
    expect(observe(new Date())).toBeUndefined();
    expect(observe({ at: new Map() })).toBeUndefined();
    expect(observe(undefined)).toBeUndefined();
    expect(observe({ call: () => 1 })).toBeUndefined();
  });
});

describe('mergeShapes', () => {
  const merge = (a: ObservedShape, b: ObservedShape) =>
    boundShape(mergeShapes(a, b, OBSERVED_LIMITS), OBSERVED_LIMITS);

  it('unites what either saw: optional fields, unions of kinds, items of empty arrays', () => {
    const one = observe({ id: 1, name: 'a', tags: [] }) as ObservedShape;
    const two = observe({ id: 2, name: null, tags: ['x'], extra: true }) as ObservedShape;
    expect(merge(one, two)).toEqual({
      type: 'object',
      properties: {
        id: { type: 'number' },
        name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        tags: { type: 'array', items: { type: 'string' } },
        extra: { type: 'boolean' },
      },
      required: ['id', 'name', 'tags'],
    });
  });

  it('answers the same shape when nothing is new, so merging again settles', () => {
    const values = [{ a: 1 }, { a: 'x', b: [1] }, [1, 'y'], null, { a: { c: true } }];
    let shape: ObservedShape | undefined;
    for (const value of values) {
      const seen = observe(value) as ObservedShape;
      shape = shape === undefined ? seen : merge(shape, seen);
    }
    for (const value of values)
      expect(merge(shape as ObservedShape, observe(value) as ObservedShape)).toBe(shape);
  });

  it('turns too many kinds into anything and too many keys into a map', () => {
    let shape = observe('a') as ObservedShape;
    for (const value of [1, true, null, [1]]) shape = merge(shape, observe(value) as ObservedShape);
    expect(shape).toEqual({});
    let object = observe({ f0: 1 }) as ObservedShape;
    for (let i = 1; i <= 64; i++) object = merge(object, observe({ [`f${i}`]: 'x' }) as ObservedShape);
    expect(object).toEqual({
      type: 'object',
      additionalProperties: { anyOf: [{ type: 'number' }, { type: 'string' }] },
    });
  });

  it('cuts a merge past its nodes at the depth that fits, and keeps it cut', () => {
    let shape: ObservedShape | undefined;
    for (let i = 0; i < 60; i++) {
      const seen = observe({
        [`a${i}`]: { [`b${i}`]: { c: 1, d: 'x', e: [true] } },
      }) as ObservedShape;
      shape = shape === undefined ? seen : merge(shape, seen);
    }
    const all = nodes(shape as ObservedShape);
    expect(all.length).toBeLessThanOrEqual(OBSERVED_LIMITS.maxNodes);
    // 1 + 60 + 60 + 180 nodes down to the fields: the objects at depth 2 became anything.
    expect(all.filter((node) => node.depth === 2).map((node) => shapeKind(node.shape))).toContain('any');
    const again = merge(shape as ObservedShape, observe({ a3: { b3: { c: 1 } } }) as ObservedShape);
    expect(again).toBe(shape);
  });
});
