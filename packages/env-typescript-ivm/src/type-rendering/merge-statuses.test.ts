import { describe, expect, it } from 'vitest';
import { mergeStatuses } from './merge-statuses';

const response = (status: number, body: unknown) => ({
  type: 'object',
  properties: { status: { const: status }, headers: { type: 'object' }, body },
  required: ['status', 'headers', 'body'],
});

describe('mergeStatuses', () => {
  it('merges the options that differ only in their status constant, in first-seen order', () => {
    const error = { $ref: '#/$defs/basic-error' };
    const schema = {
      oneOf: [
        response(200, { type: 'string' }),
        response(403, error),
        response(404, error),
        response(422, {}),
      ],
    };
    expect(mergeStatuses(schema)).toEqual({
      oneOf: [
        response(200, { type: 'string' }),
        {
          ...response(403, error),
          properties: { ...response(403, error).properties, status: { enum: [403, 404] } },
        },
        response(422, {}),
      ],
    });
  });

  it('returns any other schema as it is', () => {
    const schema = { oneOf: [response(200, {}), response(201, { type: 'string' }), { type: 'null' }] };
    expect(mergeStatuses(schema)).toBe(schema);
    const plain = { type: 'object' };
    expect(mergeStatuses(plain)).toBe(plain);
  });
});
