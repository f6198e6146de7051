import { ERROR_REASONS, ERROR_STATUS, type ErrorReason, isErrorReason } from '@cyrnel/sdk/api';

/**
 * A failed host call as it crosses into the sandbox: user code catches an `Error` carrying these
 * fields and branches on `reason`, never on the message.
 */
export interface CallError {
  readonly message: string;
  /** The gate's HTTP status, or 502 for adapter failures. */
  readonly status: number;
  /** The status class (`conflict`, `upstream_error`, ...). */
  readonly code: string;
  /** What precisely went wrong (`tool_disabled`, `too_many_calls`, ...; `ERROR_REASONS` of `@cyrnel/sdk/api`). */
  readonly reason: string;
}

/** The call error of `reason`: its code and status come from `ERROR_REASONS`. */
export function callError(reason: ErrorReason, message: string): CallError {
  const code = ERROR_REASONS[reason].code;
  return { message, status: ERROR_STATUS[code], code, reason };
}

/**
 * Normalise anything a binding rejected with; unknown failures count as upstream errors (502). A
 * coded error without a known reason keeps its code and reads as reason `unknown`.
 */
export function toCallError(error: unknown): CallError {
  const e = error as
    | { message?: unknown; status?: unknown; code?: unknown; reason?: unknown }
    | null
    | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (typeof e?.status !== 'number' || typeof e?.code !== 'string')
    return callError('upstream_failed', message);
  return { message, status: e.status, code: e.code, reason: isErrorReason(e.reason) ? e.reason : 'unknown' };
}
