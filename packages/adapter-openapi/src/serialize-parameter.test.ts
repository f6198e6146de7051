import { describe, expect, it } from 'vitest';
import type { ParameterPlan } from './operation-model';
import {
  encodeComponent,
  percentEncode,
  serializeCookie,
  serializeHeader,
  serializePath,
  serializeQuery,
} from './serialize-parameter';

const plan = (p: Partial<ParameterPlan>): ParameterPlan => ({
  name: 'color',
  in: 'query',
  style: 'form',
  explode: true,
  ...p,
});

describe('percentEncode', () => {
  it("does encode per RFC 3986, including !'()*, and keeps reserved characters but # with allowReserved", () => {
    expect(percentEncode("a b!'()*/é")).toBe('a%20b%21%27%28%29%2A%2F%C3%A9');
    expect(percentEncode('a/b?c=d&e[f]@g', true)).toBe('a/b?c=d&e[f]@g');
    // A literal `#` would end the query: the rest of the value and every later pair would be lost.
    expect(percentEncode('a#b', true)).toBe('a%23b');
  });
});

describe('encodeComponent', () => {
  it('does encode a lone surrogate as U+FFFD instead of throwing, like WHATWG URL', () => {
    expect(encodeComponent('a\uD800b')).toBe('a%EF%BF%BDb');
    expect(percentEncode('\uDC00')).toBe('%EF%BF%BD');
    expect(encodeComponent('\uD83D\uDE00')).toBe('%F0%9F%98%80');
  });
});

describe('serializeQuery', () => {
  it('does handle empty values, empty arrays, null and booleans per style', () => {
    expect(serializeQuery(plan({}), '')).toEqual(['color=']);
    expect(serializeQuery(plan({}), null)).toEqual(['color=']);
    expect(serializeQuery(plan({}), undefined)).toEqual([]);
    expect(serializeQuery(plan({}), [])).toEqual([]);
    expect(serializeQuery(plan({ explode: false }), [])).toEqual(['color=']);
    expect(serializeQuery(plan({}), true)).toEqual(['color=true']);
  });

  it('does nest deepObject brackets and repeat arrays inside them', () => {
    expect(serializeQuery(plan({ style: 'deepObject' }), { a: { b: 1 }, c: ['x', 'y'], 'd e': 'f' })).toEqual(
      ['color[a][b]=1', 'color[c]=x', 'color[c]=y', 'color[d%20e]=f'],
    );
  });

  it('does send objects nested in form values as JSON', () => {
    expect(serializeQuery(plan({}), [{ a: 1 }])).toEqual(['color=%7B%22a%22%3A1%7D']);
  });

  it('does use a tab for Swagger 2.0 tsv', () => {
    expect(serializeQuery(plan({ style: 'tabDelimited', explode: false }), ['a', 'b'])).toEqual([
      'color=a%09b',
    ]);
  });
});

describe('serializePath', () => {
  it('does follow the empty-value rows of the style table', () => {
    expect(serializePath(plan({ in: 'path', style: 'matrix', explode: false }), '')).toBe(';color');
    expect(serializePath(plan({ in: 'path', style: 'label', explode: false }), '')).toBe('.');
    expect(serializePath(plan({ in: 'path', style: 'simple', explode: false }), 'a,b')).toBe('a%2Cb');
  });

  it('does send content parameters as encoded JSON', () => {
    expect(
      serializePath(plan({ in: 'path', style: 'simple', contentType: 'application/json' }), { a: 1 }),
    ).toBe('%7B%22a%22%3A1%7D');
  });
});

describe('serializeHeader and serializeCookie', () => {
  it('does not percent-encode header values', () => {
    expect(serializeHeader(plan({ in: 'header', style: 'simple', explode: false }), 'a b/c')).toBe('a b/c');
  });

  it('does percent-encode cookie values so separators survive', () => {
    expect(serializeCookie(plan({ in: 'cookie' }), 'a; b,c')).toEqual(['color=a%3B%20b%2Cc']);
  });
});
