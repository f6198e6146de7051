import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import { RUN_PROCESS_BODY } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import { validateBody } from '../validation/body-schema';

/** How long a caller of `processes.wait` is willing to wait. */
export interface WaitOptions {
  /** Give up (a `timeout` error) after this many milliseconds, counted from the call. */
  readonly timeoutMs?: number;
  /**
   * Wait until the process is idle, however long it stays queued; once it runs, give up when it
   * has run its own `timeoutMs` plus this margin.
   */
  readonly marginMs?: number;
  /** Give up with the signal's reason once it aborts (e.g. the client left). */
  readonly signal?: AbortSignal;
}

function invalid(field: string, message: string): never {
  throw cyrnelError('invalid_request', `${field} ${message}`, { details: [{ path: field, message }] });
}

/** A process id: a positive safe integer. */
export function requireProcessId(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    invalid('id', 'must be a positive integer');
  }
  return value;
}

function optionalDelay(value: unknown, field: string, minimum: 0 | 1): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < minimum ||
    value > MAX_TIMER_DELAY_MS
  ) {
    invalid(field, `must be an integer from ${minimum} to ${MAX_TIMER_DELAY_MS}`);
  }
  return value;
}

/** Validate the options of `processes.wait`; errors name the field. */
export function validateWaitOptions(options: unknown): WaitOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    invalid('options', 'must be an object');
  }
  const { timeoutMs, marginMs, signal } = options as Record<keyof WaitOptions, unknown>;
  if (signal !== undefined && !(signal instanceof AbortSignal)) invalid('signal', 'must be an AbortSignal');
  const timeout = optionalDelay(timeoutMs, 'timeoutMs', 1);
  const margin = optionalDelay(marginMs, 'marginMs', 0);
  return {
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    ...(margin === undefined ? {} : { marginMs: margin }),
    ...(signal === undefined ? {} : { signal: signal as AbortSignal }),
  };
}

/** Validate the options of `processes.run` (the `signals/run` body) strictly; errors name the field. */
export function validateRunOptions(options: unknown): { force: boolean } {
  if (options === undefined) return { force: false };
  const { force } = validateBody<{ force?: boolean }>(options, RUN_PROCESS_BODY);
  return { force: force ?? false };
}
