import { ERROR_STATUS, type ErrorCode, type ValidationIssue } from '@cyrnel/sdk/api';

/** Options of every {@link CyrnelError}. */
export interface CyrnelErrorOptions {
  /** Extra data for clients (validation issues); never secrets. */
  details?: unknown;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The one error model of cyrnel: a stable `code` from `@cyrnel/sdk/api`'s `ERROR_STATUS`
 * and the HTTP status it maps to. Libraries throw these; only the HTTP error handler and
 * the binary's top level turn them into responses or exit codes.
 */
export class CyrnelError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** HTTP status the code maps to. */
  readonly status: number;
  /** Extra data for clients. */
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: CyrnelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
  }
}

/** Bad input: a field that does not validate, an unknown adapter, a refused definition (400). */
export class ValidationError extends CyrnelError {
  constructor(
    message: string,
    issues?: ValidationIssue[],
    options: Omit<CyrnelErrorOptions, 'details'> = {},
  ) {
    super('invalid_request', message, { ...options, details: issues });
  }
}

/** Something addressed by id does not exist (404). */
export class NotFoundError extends CyrnelError {
  constructor(message: string, options?: CyrnelErrorOptions) {
    super('not_found', message, options);
  }
}

/** The request conflicts with the current state (409). */
export class ConflictError extends CyrnelError {
  constructor(message: string, options?: CyrnelErrorOptions) {
    super('conflict', message, options);
  }
}

/** A size limit was exceeded (413). */
export class PayloadTooLargeError extends CyrnelError {
  constructor(message: string, options?: CyrnelErrorOptions) {
    super('payload_too_large', message, options);
  }
}

/** Too many live processes (429). */
export class TooManyProcessesError extends CyrnelError {
  constructor(message: string, options?: CyrnelErrorOptions) {
    super('too_many_processes', message, options);
  }
}

/** A module the request needs is not active (503). */
export class UnavailableError extends CyrnelError {
  constructor(message: string, options?: CyrnelErrorOptions) {
    super('unavailable', message, options);
  }
}

/** A module or remote failed while serving the request (502). */
export class UpstreamError extends CyrnelError {
  constructor(message: string, options?: CyrnelErrorOptions) {
    super('upstream_error', message, options);
  }
}

/** Something timed out (504). */
export class TimeoutError extends CyrnelError {
  constructor(message: string, options?: CyrnelErrorOptions) {
    super('timeout', message, options);
  }
}

/** Refused by policy, e.g. the address guard (403). */
export class ForbiddenError extends CyrnelError {
  constructor(message: string, options?: CyrnelErrorOptions) {
    super('forbidden', message, options);
  }
}

/** True when `error` is a {@link CyrnelError} (also across duplicated package copies). */
export function isCyrnelError(error: unknown): error is CyrnelError {
  if (error instanceof CyrnelError) return true;
  if (!(error instanceof Error)) return false;
  const { code, status } = error as Error & { code?: unknown; status?: unknown };
  return typeof code === 'string' && code in ERROR_STATUS && typeof status === 'number';
}
