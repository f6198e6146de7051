import type { CreateProcessRequest } from '@cyrnel/sdk/api';
import { PayloadTooLargeError, ValidationError } from '../errors';
import type { ProcessLimits } from './process-limits';

/** Longest accepted `ref` label, in characters. */
export const MAX_REF_LENGTH = 200;

/** A create request after validation, defaults applied. */
export interface ValidCreateRequest {
  readonly code: string;
  readonly ref: string | null;
  readonly timeoutMs: number | null;
  readonly envConfig: Record<string, unknown>;
  readonly autorun: boolean;
}

/** True for `{}`-style objects (not arrays, dates, class instances or null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function invalid(field: string, message: string): never {
  throw new ValidationError(`${field} ${message}`, [{ path: `/${field}`, message }]);
}

/** Validate `POST /processes` input field by field; errors name the field. */
export function validateCreateRequest(
  request: unknown,
  limits: Pick<ProcessLimits, 'maxCodeBytes' | 'defaultTimeoutMs'>,
): ValidCreateRequest {
  if (!isPlainObject(request)) invalid('body', 'must be an object');
  const { code, ref, timeoutMs, envConfig, autorun } = request as Partial<CreateProcessRequest>;
  if (typeof code !== 'string') invalid('code', 'must be a string');
  if (code.trim() === '') invalid('code', 'must not be empty');
  // Cheap upper bound first: a UTF-8 byte is at most 3 per UTF-16 unit.
  if (code.length * 3 > limits.maxCodeBytes && Buffer.byteLength(code) > limits.maxCodeBytes) {
    throw new PayloadTooLargeError(`code exceeds ${limits.maxCodeBytes} bytes`);
  }
  if (ref !== undefined && ref !== null) {
    if (typeof ref !== 'string') invalid('ref', 'must be a string');
    if (ref.length > MAX_REF_LENGTH) invalid('ref', `must be at most ${MAX_REF_LENGTH} characters`);
  }
  if (timeoutMs !== undefined && timeoutMs !== null) {
    if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
      invalid('timeoutMs', 'must be a positive integer or null');
    }
  }
  if (envConfig !== undefined && !isPlainObject(envConfig)) invalid('envConfig', 'must be an object');
  if (autorun !== undefined && typeof autorun !== 'boolean') invalid('autorun', 'must be a boolean');
  return {
    code,
    ref: ref ?? null,
    timeoutMs: timeoutMs === undefined ? limits.defaultTimeoutMs : timeoutMs,
    envConfig: envConfig ?? {},
    autorun: autorun ?? true,
  };
}
