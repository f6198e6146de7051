import { ERROR_REASONS, ERROR_STATUS, type ErrorCode, type ErrorReason, isErrorReason } from './api/errors';

/** Marks every {@link CyrnelError}, so {@link isCyrnelError} recognises one from another copy of this package. */
const BRAND = Symbol.for('@cyrnel/sdk.CyrnelError');

/** Options of {@link cyrnelError}. */
export interface CyrnelErrorOptions {
  /** Extra data for clients (validation issues); never secrets. */
  details?: unknown;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The one error model of cyrnel: a stable `reason` from `ERROR_REASONS`, the status-class `code`
 * it belongs to and the HTTP status of that code. The host and modules (adapters, environments)
 * throw these; only the HTTP error handler and the binary's top level turn them into responses or
 * exit codes. Build one with {@link cyrnelError}.
 */
export class CyrnelError extends Error {
  /** Stable status class (`conflict`, `not_found`, ...). */
  readonly code: ErrorCode;
  /** Stable, specific reason (`service_disabled`, `tool_disabled`, ...); it determines `code`. */
  readonly reason: ErrorReason;
  /** HTTP status the code maps to. */
  readonly status: number;
  /** Extra data for clients. */
  readonly details: unknown;
  /** Prefer {@link cyrnelError}. */
  constructor(reason: ErrorReason, message: string, options: CyrnelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CyrnelError';
    this.reason = reason;
    this.code = ERROR_REASONS[reason].code;
    this.status = ERROR_STATUS[this.code];
    this.details = options.details;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * The one factory of cyrnel errors: the reason picks the code and status.
 *
 * @example
 * ```ts
 * import { cyrnelError } from '@cyrnel/sdk';
 * throw cyrnelError('tool_disabled', 'tool github.list_issues is disabled');
 * // → code 'conflict', status 409, reason 'tool_disabled'
 * throw cyrnelError('invalid_request', 'limit must be a positive integer', {
 *   details: [{ path: 'limit', message: 'must be a positive integer' }],
 * });
 * ```
 */
export function cyrnelError(reason: ErrorReason, message: string, options?: CyrnelErrorOptions): CyrnelError {
  return new CyrnelError(reason, message, options);
}

/**
 * True when `value` is a {@link CyrnelError}, also one made by another copy of `@cyrnel/sdk`
 * (a module bundling its own): it checks the brand and a known reason, not only `instanceof`.
 *
 * @example
 * ```ts
 * try { await invoke(); } catch (error) {
 *   if (isCyrnelError(error) && error.reason === 'tool_disabled') skip();
 * }
 * ```
 */
export function isCyrnelError(value: unknown): value is CyrnelError {
  if (value instanceof CyrnelError) return true;
  if (!(value instanceof Error)) return false;
  const candidate = value as Error & { [BRAND]?: unknown; reason?: unknown; status?: unknown };
  return candidate[BRAND] === true && isErrorReason(candidate.reason) && typeof candidate.status === 'number';
}
