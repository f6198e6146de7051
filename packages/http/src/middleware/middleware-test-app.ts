import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { errorResponse } from '../error-response';

const SILENT = { info() {}, warn() {}, error() {} };

/** A tiny app for middleware tests: the middleware, any route answering 200, the real error envelope. */
export function middlewareTestApp(middleware: MiddlewareHandler<AppEnv>): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set('requestId', 'test');
    await next();
  });
  app.use(middleware);
  app.all('*', (c) => c.json({ ok: true }));
  app.onError((error, c) => errorResponse(error, c, SILENT));
  return app;
}
