import type { METRICS_ROUTES } from '@cyrnel/sdk/api';
import type { MetricsSource } from '../operations';
import type { RouteHandlers } from './route-handler';

/** The handler of `GET /metrics`: the embedder's metrics, with their own content type. */
export function metricsHandlers(metrics: MetricsSource): RouteHandlers<typeof METRICS_ROUTES> {
  return {
    text: async (_input, c) =>
      c.body(await metrics.text(), 200, {
        'content-type': metrics.contentType,
        // A scrape is a snapshot: never served from a cache.
        'cache-control': 'no-store',
      }),
  };
}
