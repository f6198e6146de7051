import type { ErrorBody, ErrorCode, ErrorReason, ProcessResult } from '@cyrnel/sdk/api';

/** Code (and reason) of an error response that did not carry the cyrnel error envelope. */
export type UnknownErrorCode = 'unknown';

/**
 * The server answered with an error status. `code` is the status class of the error envelope
 * (`@cyrnel/sdk/api` `ErrorCode`) and `reason` what precisely went wrong (`ErrorReason`, listed in
 * the `@cyrnel/http` README); both are `unknown` when something in between (a proxy) answered
 * without the envelope. Named apart from the SDK's `CyrnelError`, the error the server throws.
 *
 * @example
 * ```ts
 * try {
 *   await client.services.setEnabled('github', true);
 * } catch (error) {
 *   if (error instanceof CyrnelHttpError && error.reason === 'missing_secret') askForSecrets();
 *   else throw error;
 * }
 * ```
 */
export class CyrnelHttpError extends Error {
  /** HTTP status of the response. */
  readonly status: number;
  /** Stable status class (`conflict`, `not_found`, ...). */
  readonly code: ErrorCode | UnknownErrorCode;
  /** Stable, specific reason (`service_disabled`, `tool_disabled`, ...). */
  readonly reason: ErrorReason | UnknownErrorCode;
  /** Extra data, e.g. validation issues of an `invalid_request`. */
  readonly details: unknown;

  constructor(status: number, body: Partial<ErrorBody> | undefined, fallbackMessage: string) {
    super(typeof body?.error === 'string' ? body.error : fallbackMessage);
    this.name = 'CyrnelHttpError';
    this.status = status;
    this.code = typeof body?.code === 'string' ? body.code : 'unknown';
    this.reason = typeof body?.reason === 'string' ? body.reason : 'unknown';
    this.details = body?.details;
  }
}

/** The request never got an answer: connection refused, reset, DNS failure, a dropped body. */
export class CyrnelNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CyrnelNetworkError';
  }
}

/** The request took longer than its `timeoutMs` (the client's deadline, not the server's). */
export class CyrnelTimeoutError extends Error {
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number, what: string) {
    super(`${what} timed out after ${timeoutMs} ms`);
    this.name = 'CyrnelTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** A process run with `throwOnFailure` ended `failed` or `timeout`; `result` holds everything it produced. */
export class CyrnelProcessError extends Error {
  /** The finished process with its output, stdout and stderr. */
  readonly result: ProcessResult;

  constructor(result: ProcessResult) {
    super(`process ${result.id} ended ${result.exitState}${result.error ? `: ${result.error}` : ''}`);
    this.name = 'CyrnelProcessError';
    this.result = result;
  }
}
