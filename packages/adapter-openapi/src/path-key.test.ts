import { describe, expect, it } from 'vitest';
import type { NormalizedParameter } from './normalized-operation';
import { bindKeyQuery, parsePathKey } from './path-key';

const param = (name: string, location: NormalizedParameter['in'], schema: unknown = { type: 'integer' }) =>
  ({
    name,
    in: location,
    required: true,
    schema,
    style: 'simple',
    explode: false,
    allowReserved: false,
  }) as const;

describe('parsePathKey', () => {
  it('does leave a key without a query string as the path', () => {
    expect(parsePathKey('/pets/{id}')).toEqual({ path: '/pets/{id}', bound: [], literal: '' });
  });

  it('does bind variables of the query string and keep literal pairs as written', () => {
    expect(parsePathKey('/uploads?convert={convert}&mode=fast&to={target}&flag&{bare}&a%20b={x}&')).toEqual({
      path: '/uploads',
      bound: [
        { name: 'convert', variable: 'convert' },
        { name: 'to', variable: 'target' },
        { name: 'bare', variable: 'bare' },
        { name: 'a b', variable: 'x' },
      ],
      literal: 'mode=fast&flag',
    });
    expect(parsePathKey('/x?')).toEqual({ path: '/x', bound: [], literal: '' });
  });
});

describe('bindKeyQuery', () => {
  it('does add an undeclared variable as an optional string query parameter', () => {
    const [added] = bindKeyQuery([], parsePathKey('/uploads?convert={convert}'));
    expect(added).toMatchObject({
      name: 'convert',
      in: 'query',
      required: false,
      schema: { type: 'string' },
    });
    expect(added).toMatchObject({ style: 'form', explode: true });
  });

  it('does let a declared query parameter of the same name win', () => {
    const declared = { ...param('convert', 'query', { type: 'boolean' }), style: 'form', explode: true };
    expect(bindKeyQuery([declared], parsePathKey('/uploads?convert={convert}'))).toEqual([declared]);
  });

  it('does move a parameter declared in the path for a query-only variable to the query', () => {
    const result = bindKeyQuery(
      [param('id', 'path'), param('convert', 'path', { enum: ['a', 'b'] })],
      parsePathKey('/files/{id}?convert={convert}'),
    );
    expect(result.map((p) => [p.name, p.in, p.required, p.schema, p.style])).toEqual([
      ['id', 'path', true, { type: 'integer' }, 'simple'],
      ['convert', 'query', true, { enum: ['a', 'b'] }, 'form'],
    ]);
  });
});
