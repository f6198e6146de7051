import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv, HttpLogger } from '../app-env';
import type { RequestObservation } from '../operations';

/**
 * One structured line per request: method, path (no query: it may carry user data), status,
 * duration, id; and the same request, by its route's pattern, to `observe` (the metrics).
 */
export function accessLog(
  logger: HttpLogger,
  observe?: (request: RequestObservation) => void,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const durationMs = performance.now() - started;
    logger.info('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round(durationMs * 100) / 100,
      requestId: c.get('requestId'),
    });
    // The last route matched is the one that answered (`*` when only middleware did): a pattern,
    // never the path, so the metrics' labels stay few.
    observe?.({ method: c.req.method, route: routePath(c, -1) || '*', status: c.res.status, durationMs });
  };
}
