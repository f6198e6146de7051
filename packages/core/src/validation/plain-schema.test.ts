import { describe, expect, it } from 'vitest';
import { plainCheckOf } from './plain-schema';
import { compile } from './validation-worker';

/** server-everything's `get-sum` input schema, as its MCP server lists it. */
const GET_SUM = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    a: { type: 'number', description: 'First number' },
    b: { type: 'number', description: 'Second number' },
  },
  required: ['a', 'b'],
  additionalProperties: false,
};

const PLAIN = {
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1, maximum: 1000 },
    name: { type: 'string', minLength: 2, maxLength: 4 },
    state: { enum: ['open', 'closed', null] },
    kind: { const: 'issue' },
    labels: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
    extra: { type: ['object', 'null'], additionalProperties: { type: 'boolean' } },
  },
  required: ['id'],
};

/** Values for every schema: each answered `true` by the plain check must be valid for Ajv too. */
const VALUES: unknown[] = [
  {},
  { a: 1, b: 2 },
  { a: 1, b: 2, c: 3 },
  { a: '1', b: 2 },
  { a: 1 },
  { id: 5 },
  { id: 0 },
  { id: 5.5 },
  { id: 5, name: 'ab' },
  { id: 5, name: 'a' },
  { id: 5, name: '😀😀😀😀' },
  { id: 5, name: '😀😀😀😀😀' },
  { id: 5, state: null },
  { id: 5, state: 'merged' },
  { id: 5, kind: 'issue' },
  { id: 5, kind: 'pull' },
  { id: 5, labels: ['a'] },
  { id: 5, labels: [] },
  { id: 5, labels: ['a', 1] },
  { id: 5, labels: ['a', 'b', 'c', 'd'] },
  { id: 5, extra: null },
  { id: 5, extra: { x: true } },
  { id: 5, extra: { x: 1 } },
  { id: 5, other: [1, { deep: true }] },
  [],
  'text',
  null,
  JSON.parse('{"__proto__": {"a": 1}, "a": 1, "b": 2}'),
];

describe('the plain check of a schema (the host thread’s own, before any worker)', () => {
  it('answers true only where Ajv, as the validation worker runs it, finds the value valid', () => {
    for (const schema of [GET_SUM, PLAIN, { type: 'object' }, true]) {
      const check = plainCheckOf(schema);
      expect(check).toBeDefined();
      const ajv = compile(schema);
      for (const value of VALUES) {
        if (check?.(value)) expect([schema, value, ajv(value)]).toEqual([schema, value, true]);
      }
    }
    const sum = plainCheckOf(GET_SUM);
    expect(sum?.({ a: 1, b: 2 })).toBe(true);
    expect(sum?.({ a: 1, b: 2, c: 3 })).toBe(false);
    expect(sum?.({ a: 1 })).toBe(false);
    expect(sum?.({ a: 1, b: Number.POSITIVE_INFINITY })).toBe(false);
    const plain = plainCheckOf(PLAIN);
    expect(
      plain?.({ id: 5, name: '😀😀😀😀', state: null, kind: 'issue', labels: ['a'], extra: { x: true } }),
    ).toBe(true);
  });

  it('leaves to the worker every schema with a keyword it does not know as plain', () => {
    for (const schema of [
      { type: 'string', pattern: '^(a+)+$' },
      { type: 'string', format: 'email' },
      { $ref: '#/$defs/user' },
      { anyOf: [{ type: 'string' }] },
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      { type: 'array', items: [{ type: 'string' }] },
      { type: 'array', uniqueItems: true },
      { type: 'number', exclusiveMinimum: true, minimum: 0 },
      { type: 'object', properties: { a: { type: 'string', nullable: true } } },
      { type: 'object', properties: { a: { $schema: 'http://json-schema.org/draft-07/schema#' } } },
      { enum: [{ a: 1 }] },
      { type: 'strange' },
      { type: [] },
      { minLength: 1.5 },
      false,
      'not a schema',
      // More subschemas than the host walks at compile time.
      {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 300 }, (_, n) => [`p${n}`, {}])),
      },
    ]) {
      expect([schema, plainCheckOf(schema)]).toEqual([schema, undefined]);
    }
  });

  it('stops its walk at its budget: a large or deep value is the worker’s', () => {
    const strings = plainCheckOf({ type: 'array', items: { type: 'string' } });
    expect(strings?.(Array(1000).fill('a'))).toBe(true);
    expect(strings?.(Array(5000).fill('a'))).toBe(false);
    const text = plainCheckOf({ type: 'string', maxLength: 10_000_000 });
    expect(text?.('a'.repeat(1000))).toBe(true);
    expect(text?.('a'.repeat(1_000_000))).toBe(false);
    const keys = plainCheckOf({ type: 'object', properties: { a: { type: 'number' } } });
    expect(keys?.(Object.fromEntries(Array.from({ length: 100_000 }, (_, n) => [`k${n}`, n])))).toBe(false);
    type Nested = { next?: Nested };
    const nested: Record<string, unknown> = { type: 'object', properties: {} };
    let schema = nested;
    for (let depth = 0; depth < 40; depth++) {
      const inner: Record<string, unknown> = { type: 'object', properties: {} };
      (schema.properties as Record<string, unknown>).next = inner;
      schema = inner;
    }
    const deep = plainCheckOf(nested);
    let value: Nested = {};
    const root = value;
    for (let depth = 0; depth < 40; depth++) {
      value.next = {};
      value = value.next;
    }
    expect(deep?.(root)).toBe(false);
    // The whole value is walked, not only what the schema names: a deep or odd value anywhere in
    // it is the worker's (whose structured clone refuses what is not plain JSON).
    const open = plainCheckOf({ type: 'object' });
    expect(open?.({ a: { b: [1, 'x', null, true] } })).toBe(true);
    expect(open?.({ a: root })).toBe(false);
    expect(open?.({ a: undefined })).toBe(false);
    expect(open?.({ a: () => 1 })).toBe(false);
    expect(open?.({ a: new Date(0) })).toBe(false);
    // biome-ignore lint/suspicious/noSparseArray: a hole is what this line checks
    expect(open?.({ a: [1, , 3] })).toBe(false);
    expect(open?.({ a: Number.NaN })).toBe(false);
  });
});
