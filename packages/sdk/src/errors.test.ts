import { describe, expect, it } from 'vitest';
import { ERROR_REASONS, ERROR_STATUS, isErrorReason } from './api/errors';
import { CyrnelError, cyrnelError, isCyrnelError } from './errors';

describe('cyrnelError', () => {
  it('takes code and status from the reason', () => {
    const disabled = cyrnelError('tool_disabled', 'tool s.t is disabled');
    expect(disabled).toBeInstanceOf(CyrnelError);
    expect(disabled).toBeInstanceOf(Error);
    expect(disabled).toMatchObject({
      name: 'CyrnelError',
      message: 'tool s.t is disabled',
      reason: 'tool_disabled',
      code: 'conflict',
      status: 409,
      details: undefined,
    });
    expect(cyrnelError('service_disabled', 'x')).toMatchObject({ code: 'conflict', status: 409 });
    expect(cyrnelError('too_many_calls', 'x')).toMatchObject({ code: 'too_many_calls', status: 429 });
    expect(cyrnelError('invoke_timeout', 'x')).toMatchObject({ code: 'upstream_error', status: 502 });
  });

  it('keeps details and cause', () => {
    const cause = new Error('low level');
    const issues = [{ path: 'limit', message: 'must be a positive integer' }];
    const error = cyrnelError('invalid_parameters', 'bad', { details: issues, cause });
    expect(error.details).toBe(issues);
    expect(error.cause).toBe(cause);
    expect(error.status).toBe(400);
  });

  it('maps every reason to a known code', () => {
    for (const [reason, { code, meaning }] of Object.entries(ERROR_REASONS)) {
      expect(ERROR_STATUS[code], reason).toBeTypeOf('number');
      expect(meaning.length, reason).toBeGreaterThan(10);
      expect(reason).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });
});

describe('isCyrnelError', () => {
  it('recognises errors of the factory', () => {
    expect(isCyrnelError(cyrnelError('internal', 'boom'))).toBe(true);
  });

  it('recognises an error of another copy of the package by its brand', () => {
    // What a module bundling its own copy of @cyrnel/sdk throws: same brand, another class.
    class OtherCopy extends Error {
      readonly reason = 'service_disabled';
      readonly code = 'conflict';
      readonly status = 409;
      constructor(message: string) {
        super(message);
        Object.defineProperty(this, Symbol.for('@cyrnel/sdk.CyrnelError'), { value: true });
      }
    }
    expect(isCyrnelError(new OtherCopy('service s is disabled'))).toBe(true);
  });

  it('refuses look-alikes without the brand or with an unknown reason', () => {
    const lookAlike = Object.assign(new Error('x'), {
      code: 'conflict',
      reason: 'service_disabled',
      status: 409,
    });
    expect(isCyrnelError(lookAlike)).toBe(false);
    const unknown = cyrnelError('internal', 'x');
    Object.defineProperty(unknown, 'reason', { value: 'no_such_reason' });
    Object.setPrototypeOf(unknown, Error.prototype);
    expect(isCyrnelError(unknown)).toBe(false);
    expect(isCyrnelError({ code: 'conflict', reason: 'service_disabled', status: 409 })).toBe(false);
    expect(isCyrnelError(undefined)).toBe(false);
  });
});

describe('isErrorReason', () => {
  it('knows the listed reasons only', () => {
    expect(isErrorReason('too_many_calls')).toBe(true);
    expect(isErrorReason('toString')).toBe(false);
    expect(isErrorReason('conflict')).toBe(false);
    expect(isErrorReason(7)).toBe(false);
  });
});
