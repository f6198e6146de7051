import { isCyrnelError, type Redactor } from '@cyrnel/core';
import type { ErrorBody } from '@cyrnel/sdk/api';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv, HttpLogger } from './app-env';

/** `Retry-After` of the other 429s: live processes, event streams and calls free up within seconds. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * `Retry-After` of a 429 `storage_quota_exceeded`: room comes back when the key deletes
 * processes or at the next pruning of the retention, which runs at least once a minute.
 */
export const QUOTA_RETRY_AFTER_SECONDS = 60;

/**
 * Turn any thrown value into the error envelope `{error, code, reason, details?}`. Typed errors
 * keep their message, reason and status; anything else is a 500 `internal` with a generic
 * message, logged with the request id (never the stack to the client). `redactor` removes the
 * secrets the host holds from what is answered.
 */
export function errorResponse(
  error: unknown,
  c: Context<AppEnv>,
  logger: HttpLogger,
  redactor?: Redactor,
): Response {
  if (isCyrnelError(error)) {
    const message = redactor ? redactor.redact(error.message) : error.message;
    const body: ErrorBody = { error: message, code: error.code, reason: error.reason };
    if (error.details !== undefined)
      body.details = redactor ? redactor.redactValue(error.details) : error.details;
    if (error.status >= 500) {
      logger.warn('request failed', {
        requestId: c.get('requestId'),
        code: error.code,
        reason: error.reason,
        error: error.message,
      });
    }
    // Every 429 tells the client when to come back (RFC 9110 §10.2.3), so retries back off.
    if (error.status === 429)
      c.header(
        'Retry-After',
        String(error.reason === 'storage_quota_exceeded' ? QUOTA_RETRY_AFTER_SECONDS : RETRY_AFTER_SECONDS),
      );
    return c.json(body, error.status as ContentfulStatusCode);
  }
  if (error instanceof HTTPException && error.status === 413) {
    return c.json(
      {
        error: 'the request body is too large',
        code: 'payload_too_large',
        reason: 'payload_too_large',
      } satisfies ErrorBody,
      413,
    );
  }
  logger.error('unhandled error', {
    requestId: c.get('requestId'),
    error: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return c.json(
    {
      error: `internal error (request id ${c.get('requestId')})`,
      code: 'internal',
      reason: 'internal',
    } satisfies ErrorBody,
    500,
  );
}
