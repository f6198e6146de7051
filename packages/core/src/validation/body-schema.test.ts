import { ENABLED_BODY } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { requireJsonPatch } from '../json/json-patch';
import { validateBody } from './body-schema';

describe('validateBody', () => {
  const schema = { enabled: { type: 'boolean', required: true }, name: { type: 'string' } } as const;

  it('accepts valid bodies', () => {
    expect(validateBody({ enabled: true }, schema)).toEqual({ enabled: true });
  });

  it('refuses unknown fields, wrong types, missing fields and non-objects naming the field', () => {
    expect(() => validateBody({ enabled: true, extra: 1 }, schema)).toThrow(/extra unknown field/);
    expect(() => validateBody({ enabled: 'true' }, schema)).toThrow(/enabled must be a boolean/);
    expect(() => validateBody({}, schema)).toThrow(/enabled is required/);
    expect(() => validateBody([], schema)).toThrow(/JSON object/);
    expect(() => validateBody({ enabled: 1, name: 2 }, schema)).toThrowError(
      expect.objectContaining({
        code: 'invalid_request',
        details: [
          { path: 'enabled', message: expect.any(String) },
          { path: 'name', message: 'must be a string' },
        ],
      }),
    );
  });
});

describe('requireJsonPatch', () => {
  it('accepts RFC 6902 operations', () => {
    const patch = [
      { op: 'add', path: '/a', value: 1 },
      { op: 'remove', path: '/b' },
      { op: 'move', from: '/c', path: '/d' },
    ];
    expect(requireJsonPatch(patch)).toBe(patch);
  });

  it('refuses non-arrays, unknown ops, missing and unknown members', () => {
    expect(() => requireJsonPatch({ op: 'add' })).toThrow(/array/);
    expect(() => requireJsonPatch([{ op: 'merge', path: '/a' }])).toThrow(/\/0\/op/);
    expect(() => requireJsonPatch([{ op: 'add', path: '/a' }])).toThrow(/\/0\/value is required/);
    expect(() => requireJsonPatch([{ op: 'remove', path: 'a' }])).toThrow(/JSON pointer/);
    expect(() => requireJsonPatch([{ op: 'remove', path: '/a', value: 1 }])).toThrow(/unknown field/);
  });
});

describe('ENABLED_BODY', () => {
  it('is {enabled: boolean}, strictly', () => {
    expect(validateBody({ enabled: false }, ENABLED_BODY)).toEqual({ enabled: false });
    expect(() => validateBody({ enabled: true, x: 1 }, ENABLED_BODY)).toThrow(/x unknown field/);
  });
});
