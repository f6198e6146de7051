import type { MiddlewareHandler } from 'hono';
import type { AppEnv, HttpLogger } from '../app-env';

/** One structured line per request: method, path (no query: it may carry user data), status, duration, id. */
export function accessLog(logger: HttpLogger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    logger.info('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      requestId: c.get('requestId'),
    });
  };
}
