import type { METRICS_ROUTES } from '@cyrnel/sdk/api';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { MetricsSource } from '../operations';
import type { RouteHandlers } from './route-handler';

/** The metrics now, with their own content type; a scrape is a snapshot, never served from a cache. */
export async function metricsResponse(c: Context<AppEnv>, metrics: MetricsSource): Promise<Response> {
  return c.body(await metrics.text(), 200, {
    'content-type': metrics.contentType,
    'cache-control': 'no-store',
  });
}

/** The handler of `GET /metrics`: the embedder's metrics. */
export function metricsHandlers(metrics: MetricsSource): RouteHandlers<typeof METRICS_ROUTES> {
  return { text: async (_input, c) => metricsResponse(c, metrics) };
}
