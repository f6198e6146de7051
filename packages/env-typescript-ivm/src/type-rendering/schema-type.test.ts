import { describe, expect, it } from 'vitest';
import { leadingSentence, MAX_SCHEMA_TYPE_LENGTH, renderSchemaType } from './schema-type';

describe('renderSchemaType', () => {
  it('renders objects with required and optional members and comments', () => {
    expect(
      renderSchemaType(
        {
          type: 'object',
          properties: {
            id: { type: 'integer', description: 'The id' },
            'x-trace': { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['id'],
          additionalProperties: false,
        },
        { comments: true },
      ),
    ).toMatchInlineSnapshot(`
      "{
        /** The id */
        id: number;
        "x-trace"?: string;
        tags?: string[];
      }"
    `);
  });

  it('renders enums, const, unions, nullable and type arrays', () => {
    expect(renderSchemaType({ enum: ['a', 'b', 3, null] })).toBe('"a" | "b" | 3 | null');
    expect(renderSchemaType({ const: 'fixed' })).toBe('"fixed"');
    expect(renderSchemaType({ anyOf: [{ type: 'string' }, { type: 'number' }] })).toBe('string | number');
    expect(renderSchemaType({ oneOf: [{ type: 'boolean' }, { type: 'null' }] })).toBe('boolean | null');
    expect(renderSchemaType({ type: 'string', nullable: true })).toBe('string | null');
    expect(renderSchemaType({ type: ['string', 'null'] })).toBe('string | null');
    expect(
      renderSchemaType({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }),
    ).toBe('(string | number)[]');
    expect(renderSchemaType({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] })).toBe(
      '[string, number]',
    );
  });

  it('renders open objects as index signatures and intersections for allOf', () => {
    expect(renderSchemaType({ type: 'object' })).toMatchInlineSnapshot(`
      "{
        [key: string]: unknown;
      }"
    `);
    expect(
      renderSchemaType({ type: 'object', additionalProperties: { type: 'number' } }),
    ).toMatchInlineSnapshot(`
      "{
        [key: string]: number;
      }"
    `);
    expect(
      renderSchemaType({
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } }, additionalProperties: false },
        ],
      }),
    ).toMatchInlineSnapshot(`
      "{
        a: string;
      } & {
        b?: number;
      }"
    `);
  });

  it('brackets unions and intersections where TypeScript needs it', () => {
    const a = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const b = { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] };
    expect(renderSchemaType({ type: 'array', items: { ...a, nullable: true } })).toMatchInlineSnapshot(`
      "({
        a: string;
      } | null)[]"
    `);
    expect(renderSchemaType({ type: 'array', items: { oneOf: [a, b] } })).toMatchInlineSnapshot(`
      "({
        a: string;
      } | {
        b: number;
      })[]"
    `);
    expect(renderSchemaType({ allOf: [{ ...a, nullable: true }, b] })).toMatchInlineSnapshot(`
      "({
        a: string;
      } | null) & {
        b: number;
      }"
    `);
    expect(renderSchemaType({ type: 'array', items: { allOf: [a, b] } })).toMatchInlineSnapshot(`
      "({
        a: string;
      } & {
        b: number;
      })[]"
    `);
    expect(renderSchemaType({ anyOf: [{ allOf: [a, b] }, { type: 'null' }] })).toMatchInlineSnapshot(`
      "{
        a: string;
      } & {
        b: number;
      } | null"
    `);
    expect(
      renderSchemaType({ anyOf: [{ type: ['string', 'null'] }, { type: 'number' }], nullable: true }),
    ).toBe('string | null | number');
    expect(
      renderSchemaType({
        type: 'array',
        items: { type: 'array', items: { type: 'string', nullable: true } },
      }),
    ).toBe('(string | null)[][]');
  });

  it('follows local $refs into $defs and definitions and stops at cycles', () => {
    const schema = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' }, legacy: { $ref: '#/definitions/Id' } },
      required: ['node'],
      additionalProperties: false,
      $defs: {
        Node: {
          type: 'object',
          properties: { value: { type: 'string' }, next: { $ref: '#/$defs/Node' } },
          additionalProperties: false,
        },
      },
      definitions: { Id: { type: 'integer' } },
    };
    expect(renderSchemaType(schema)).toMatchInlineSnapshot(`
      "{
        node: {
          value?: string;
          next?: unknown;
        };
        legacy?: number;
      }"
    `);
  });

  it('renders OpenAPI-style response unions', () => {
    const schema = {
      oneOf: [
        {
          type: 'object',
          properties: { status: { const: 200 }, body: { type: 'array', items: { type: 'string' } } },
          required: ['status', 'body'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { status: { const: 404 }, body: { type: 'null' } },
          required: ['status', 'body'],
          additionalProperties: false,
        },
      ],
    };
    expect(renderSchemaType(schema)).toMatchInlineSnapshot(`
      "{
        status: 200;
        body: string[];
      } | {
        status: 404;
        body: null;
      }"
    `);
  });

  it('degrades unknown constructs to unknown and never throws', () => {
    expect(renderSchemaType(undefined)).toBe('unknown');
    expect(renderSchemaType(null)).toBe('unknown');
    expect(renderSchemaType('string')).toBe('unknown');
    expect(renderSchemaType(true)).toBe('unknown');
    expect(renderSchemaType(false)).toBe('never');
    expect(renderSchemaType({ $ref: 'https://example.com/x.json' })).toBe('unknown');
    expect(renderSchemaType({ type: 'weird' })).toBe('unknown');
    expect(renderSchemaType({ enum: [{ a: 1 }] })).toBe('unknown');
    expect(renderSchemaType({ type: 'object', properties: 'nope', required: 'x' })).toMatchInlineSnapshot(`
      "{
        [key: string]: unknown;
      }"
    `);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) deep = { type: 'array', items: deep };
    expect(renderSchemaType(deep)).toContain('unknown');
  });

  it('stops at its size budget when definitions refer to each other many times per level', () => {
    // Inlined, 10 levels of 5 references each would be 5^10 objects (hundreds of megabytes).
    const $defs: Record<string, unknown> = {};
    for (let level = 0; level < 10; level++) {
      const next = level < 9 ? { $ref: `#/$defs/D${level + 1}` } : { type: 'string', description: 'leaf' };
      $defs[`D${level}`] = { type: 'object', properties: { a: next, b: next, c: next, d: next, e: next } };
    }
    const started = performance.now();
    const text = renderSchemaType({ $ref: '#/$defs/D0', $defs }, { comments: true });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(text.length).toBeGreaterThan(MAX_SCHEMA_TYPE_LENGTH / 2);
    expect(text.length).toBeLessThan(2 * MAX_SCHEMA_TYPE_LENGTH);
    // Cut short, an object stays open, so the members left out may still be passed.
    expect(text).toContain('[key: string]: unknown;');
    const small = renderSchemaType({ $ref: '#/$defs/D0', $defs }, { maxLength: 2000 });
    expect(small.length).toBeLessThan(4000);
    expect(small.startsWith('{\n  a?: {')).toBe(true);
  });

  it('comments the outermost levels of objects only, cut to first sentences, when asked', () => {
    const schema = {
      type: 'object',
      properties: {
        body: {
          type: 'object',
          description: 'The body. Sent as JSON.',
          properties: {
            title: { type: 'string', description: 'The title, e.g. a summary. Not empty.' },
            meta: {
              type: 'object',
              properties: { deep: { type: 'string', description: 'Too deep' } },
            },
          },
        },
      },
    };
    const text = renderSchemaType(schema, { comments: 2, firstSentence: true });
    expect(text).toContain('/** The body. */');
    expect(text).toContain('/** The title, e.g. a summary. */');
    expect(text).not.toContain('Too deep');
    expect(renderSchemaType(schema, { comments: true })).toContain('/** Too deep */');
    expect(leadingSentence('Unique identifier of the repository')).toBe(
      'Unique identifier of the repository',
    );
  });

  it('renders an object without comments on one line when it fits inlineWidth', () => {
    const schema = {
      type: 'object',
      properties: {
        short: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        long: {
          type: 'object',
          properties: { aaaaaaaaaa: { type: 'string' }, bbbbbbbbbb: { type: 'number' } },
        },
      },
    };
    expect(renderSchemaType(schema, { inlineWidth: 30 })).toBe(
      '{\n  short?: { a: string };\n  long?: {\n    aaaaaaaaaa?: string;\n    bbbbbbbbbb?: number;\n  };\n}',
    );
  });

  it('packs members without comments side by side up to packWidth, a commented one alone', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'string' },
        c: { type: 'string', description: 'The c.' },
        d: { type: 'number' },
        e: { type: 'number' },
        f: { type: 'number' },
      },
      required: ['a', 'b', 'c', 'd', 'e', 'f'],
    };
    expect(renderSchemaType(schema, { packWidth: 24, comments: true })).toBe(
      '{\n  a: string; b: string;\n  /** The c. */\n  c: string;\n  d: number; e: number;\n  f: number;\n}',
    );
  });
});
