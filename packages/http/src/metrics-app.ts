import type { ErrorBody } from '@cyrnel/sdk/api';
import { Hono } from 'hono';
import type { AppEnv, HttpLogger } from './app-env';
import { errorResponse } from './error-response';
import { hostAllowList } from './middleware/host-allow-list';
import { requestId } from './middleware/request-id';
import type { MetricsSource } from './operations';
import { metricsResponse } from './routes/metrics-handlers';

/** Options of {@link createMetricsApp}. */
export interface MetricsAppOptions {
  /** DNS names accepted in `Host` besides IP literals and loopback names (see `createApp`). */
  readonly allowedHosts?: readonly string[];
  /** Failures; silent by default. */
  readonly logger?: HttpLogger;
}

const SILENT: HttpLogger = { info() {}, warn() {}, error() {} };

/**
 * An app that serves only `GET /metrics`, without a key: for a listener of its own that a
 * Prometheus scraper reaches (the server's `--metrics-listen`), apart from the API and its keys.
 * `Host` is checked as on the API (DNS rebinding must not let a web page read it); every other
 * path is a 404 in the error envelope.
 *
 * @example
 * ```ts
 * serve({ fetch: createMetricsApp(metrics).fetch, hostname: '127.0.0.1', port: 9464 });
 * ```
 */
export function createMetricsApp(metrics: MetricsSource, options: MetricsAppOptions = {}): Hono<AppEnv> {
  const logger = options.logger ?? SILENT;
  const app = new Hono<AppEnv>();
  app.use(requestId());
  app.use(hostAllowList({ allowedHosts: options.allowedHosts ?? [] }));
  app.get('/metrics', (c) => metricsResponse(c, metrics));
  app.notFound((c) =>
    c.json(
      {
        error: `no route for ${c.req.method} ${c.req.path}: this address serves only GET /metrics`,
        code: 'not_found',
        reason: 'route_not_found',
      } satisfies ErrorBody,
      404,
    ),
  );
  app.onError((error, c) => errorResponse(error, c, logger));
  return app;
}
