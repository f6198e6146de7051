import { describe, expect, it } from 'vitest';
import { fillDefaults, stripDefaults } from './fill-defaults';

describe('fillDefaults', () => {
  it('fills absent properties recursively, keeping given values', () => {
    const schema = {
      type: 'object',
      properties: {
        timeoutMs: { type: 'integer', default: 30000 },
        retry: {
          type: 'object',
          default: {},
          properties: { count: { default: 3 }, backoff: { default: 'exp' } },
        },
        given: { default: 'no' },
      },
    };
    expect(fillDefaults(schema, { given: 'yes', retry: { count: 5 } })).toEqual({
      timeoutMs: 30000,
      given: 'yes',
      retry: { count: 5, backoff: 'exp' },
    });
    expect(fillDefaults(schema, {})).toEqual({
      timeoutMs: 30000,
      given: 'no',
      retry: { count: 3, backoff: 'exp' },
    });
  });

  it('follows local $refs, allOf and array items, and never shares default objects', () => {
    const schema = {
      $defs: { server: { type: 'object', properties: { port: { default: 443 } } } },
      allOf: [{ properties: { mode: { default: 'fast' } } }],
      properties: { servers: { type: 'array', items: { $ref: '#/$defs/server' } }, tags: { default: ['a'] } },
    };
    const first = fillDefaults<Record<string, unknown>>(schema, { servers: [{}, { port: 80 }] }) as {
      tags: string[];
    };
    expect(first).toEqual({ mode: 'fast', servers: [{ port: 443 }, { port: 80 }], tags: ['a'] });
    first.tags.push('b');
    expect(fillDefaults(schema, {})).toMatchObject({ tags: ['a'] });
  });

  it('stops on circular references', () => {
    const schema = { $ref: '#', properties: { child: { $ref: '#' }, n: { default: 1 } } };
    expect(fillDefaults(schema, { child: {} })).toEqual({ n: 1, child: { n: 1 } });
  });
});

describe('stripDefaults', () => {
  it('drops top-level values equal to their default (direct or through $ref), keeping the rest', () => {
    const schema = {
      type: 'object',
      $defs: { Region: { type: 'string', default: 'eu' } },
      properties: {
        timeoutMs: { type: 'integer', default: 30000 },
        region: { $ref: '#/$defs/Region' },
        headers: { type: 'object', default: {} },
        retry: { type: 'object', default: { count: 3 } },
      },
    };
    expect(
      stripDefaults(schema, { timeoutMs: 30000, region: 'eu', headers: {}, retry: { count: 4 }, extra: 1 }),
    ).toEqual({ retry: { count: 4 }, extra: 1 });
    expect(stripDefaults(schema, { timeoutMs: 1000, region: 'us' })).toEqual({
      timeoutMs: 1000,
      region: 'us',
    });
    expect(fillDefaults(schema, stripDefaults(schema, { timeoutMs: 30000, region: 'us' }))).toEqual({
      timeoutMs: 30000,
      region: 'us',
      headers: {},
      retry: { count: 3 },
    });
  });
});
