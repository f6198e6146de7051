import { API_ROUTES } from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/** `/metrics`: the server's metrics (admin keys only). */
export interface MetricsApi {
  /**
   * `GET /metrics`: this host's metrics in the Prometheus text format.
   *
   * @example
   * ```ts
   * const text = await client.metrics.text();
   * const running = /^cyrnel_processes\{state="running"\} (\d+)$/m.exec(text)?.[1];
   * ```
   */
  text(options?: RequestOptions): Promise<string>;
}

/** Build the `metrics` group over the route caller. */
export function createMetricsApi(call: RouteCaller): MetricsApi {
  return { text: (options) => call(API_ROUTES.metrics.text, {}, options) };
}
