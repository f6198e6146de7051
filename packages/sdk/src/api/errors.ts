/**
 * Every stable error code of the HTTP API with its status (SPEC §9). Listed once; never reused.
 * Issue 13 added `unsupported_media_type` (a request body that is not `application/json`) and
 * `too_many_streams` (the server's cap on concurrent event streams) and `too_many_calls` (a
 * process beyond its budget of calls, e.g. discovery); every 429 over HTTP carries `Retry-After`
 * in seconds.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_processes: 429,
  too_many_streams: 429,
  too_many_calls: 429,
  internal: 500,
  upstream_error: 502,
  unavailable: 503,
  timeout: 504,
} as const;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The error envelope of every non-2xx JSON response. */
export interface ErrorBody {
  /** Human-readable message naming the problem. */
  error: string;
  /** Stable machine-readable code. */
  code: ErrorCode;
  /** Extra data, e.g. validation errors. */
  details?: unknown;
}

/** One schema validation problem, as carried in `details` of `invalid_request` errors. */
export interface ValidationIssue {
  /** JSON pointer (or field name) of the offending value. */
  path: string;
  /** What is wrong with it. */
  message: string;
}
