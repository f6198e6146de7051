import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from './json-patch';

const fails = (document: unknown, patch: unknown) => {
  try {
    applyJsonPatch(document, patch);
  } catch (error) {
    return error as { code: string; message: string; details: { path: string }[] };
  }
  throw new Error('expected the patch to fail');
};

describe('applyJsonPatch', () => {
  it('adds, removes and replaces object members without touching the input', () => {
    const input = { a: 1, b: { c: 2 } };
    const output = applyJsonPatch(input, [
      { op: 'add', path: '/d', value: [1] },
      { op: 'remove', path: '/a' },
      { op: 'replace', path: '/b/c', value: 3 },
    ]);
    expect(output).toEqual({ b: { c: 3 }, d: [1] });
    expect(input).toEqual({ a: 1, b: { c: 2 } });
  });

  it('appends with `-` and inserts at an index', () => {
    expect(
      applyJsonPatch({ list: ['a', 'c'] }, [
        { op: 'add', path: '/list/-', value: 'd' },
        { op: 'add', path: '/list/1', value: 'b' },
      ]),
    ).toEqual({ list: ['a', 'b', 'c', 'd'] });
  });

  it('decodes ~1 and ~0 escapes (RFC 6901), ~01 meaning "~1"', () => {
    expect(
      applyJsonPatch({}, [
        { op: 'add', path: '/a~1b', value: 1 },
        { op: 'add', path: '/m~0n', value: 2 },
        { op: 'add', path: '/x~01', value: 3 },
      ]),
    ).toEqual({ 'a/b': 1, 'm~n': 2, 'x~1': 3 });
    expect(fails({}, [{ op: 'add', path: '/bad~2', value: 1 }]).message).toContain('not a JSON pointer');
  });

  it('tests values structurally and fails the whole patch on a mismatch', () => {
    expect(
      applyJsonPatch({ a: { x: [1, { y: 2 }] } }, [{ op: 'test', path: '/a', value: { x: [1, { y: 2 }] } }]),
    ).toEqual({
      a: { x: [1, { y: 2 }] },
    });
    const error = fails({ a: 1 }, [
      { op: 'replace', path: '/a', value: 2 },
      { op: 'test', path: '/a', value: 1 },
    ]);
    expect(error).toMatchObject({ code: 'invalid_request', details: [{ path: '/1' }] });
    expect(error.message).toContain('operation 1 (test)');
  });

  it('moves and copies, refusing a move into the moved value', () => {
    expect(
      applyJsonPatch({ a: { b: 1 }, list: [1, 2] }, [
        { op: 'copy', from: '/a', path: '/c' },
        { op: 'move', from: '/a/b', path: '/moved' },
        { op: 'move', from: '/list/0', path: '/list/-' },
      ]),
    ).toEqual({ a: {}, c: { b: 1 }, moved: 1, list: [2, 1] });
    expect(fails({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]).message).toContain(
      'into itself',
    );
    expect(applyJsonPatch({ a: 1 }, [{ op: 'move', from: '/a', path: '/a' }])).toEqual({ a: 1 });
  });

  it('replaces the whole document with an empty path', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }])).toEqual({ b: 2 });
  });

  it('names the failing operation for invalid paths, indexes and operations', () => {
    expect(fails({}, [{ op: 'remove', path: '/missing' }]).details).toEqual([
      { path: '/0', message: 'path does not exist' },
    ]);
    expect(fails({ l: [1] }, [{ op: 'add', path: '/l/5', value: 1 }]).message).toContain('out of range');
    expect(fails({ l: [1] }, [{ op: 'add', path: '/l/01', value: 1 }]).message).toContain(
      'not an array index',
    );
    expect(fails({ l: [1] }, [{ op: 'replace', path: '/l/-', value: 1 }]).message).toContain(
      'not an array index',
    );
    expect(fails({}, [{ op: 'add', path: '/a/b', value: 1 }]).message).toContain('path does not exist');
    expect(fails({}, [{ op: 'add', path: 'a', value: 1 }]).message).toContain('not a JSON pointer');
    expect(fails({}, [{ op: 'add', path: '/a' }]).message).toContain('value is missing');
    expect(fails({}, [{ op: 'jump', path: '/a' }]).message).toContain('op must be one of');
    expect(fails({}, [{ op: 'copy', path: '/a' }]).message).toContain('from must be a string');
    expect(fails({}, ['nope']).message).toContain('operation 0');
    expect(fails({}, { op: 'add' }).message).toContain('must be a JSON Patch array');
  });

  it('stores __proto__ as data, never changing a prototype', () => {
    const output = applyJsonPatch({}, [
      { op: 'add', path: '/__proto__', value: { polluted: true } },
    ]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.hasOwn(output, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses test operations when asked to (secrets)', () => {
    expect(() =>
      applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 1 }], 'secrets patch', { allowTest: false }),
    ).toThrow('test is not allowed');
  });
});
