import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';

/** Header carrying the request id in both directions. */
export const REQUEST_ID_HEADER = 'x-request-id';

// Accept a client's id only when it cannot smuggle anything into logs or headers.
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Take a sane incoming `x-request-id` or generate one; echo it on every response. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header(REQUEST_ID_HEADER);
    const id = incoming && SANE_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', id);
    c.header(REQUEST_ID_HEADER, id);
    await next();
    c.res.headers.set(REQUEST_ID_HEADER, id);
  };
}
