import type { AddressInfo } from 'node:net';
import { createMetricsApp, type HttpLogger, type MetricsSource } from '@cyrnel/http';
import { serve } from '@hono/node-server';
import { isLoopbackHost } from './assert-safe-bind';
import type { ListenAddress } from './flag-spec';
import { ConfigError } from './server-config';

/**
 * Refuse to serve the metrics without a key on an address others can reach unless the operator
 * said so (`--metrics-public`): like the API's own bind, a non-loopback address is a choice, not
 * a default. The metrics hold counts, durations and service and tool ids; never a secret, a key
 * or what a process did.
 */
export function assertSafeMetricsBind(address: ListenAddress, metricsPublic: boolean): void {
  if (isLoopbackHost(address.host) || metricsPublic) return;
  throw new ConfigError(
    `refusing to serve /metrics without a key on ${address.host}: anyone who reaches that address would read them. ` +
      'Bind it to loopback (--metrics-listen 127.0.0.1:9464) and scrape from this machine, ' +
      'scrape the API port with an admin key, or pass --metrics-public / CYRNEL_METRICS_PUBLIC=true',
  );
}

/** The metrics' own listener: its URL and how to stop it. */
export interface MetricsListener {
  /** `http://host:port`, with the port bound (useful with port 0). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serve `GET /metrics` without a key on `address` (`--metrics-listen`), apart from the API: only
 * that route, `Host` checked against DNS rebinding as on the API (`allowedHosts`, and the name
 * it binds).
 *
 * @example
 * ```ts
 * const listener = await listenForMetrics({ host: '127.0.0.1', port: 9464 }, metrics.source);
 * await fetch(`${listener.url}/metrics`);
 * ```
 */
export async function listenForMetrics(
  address: ListenAddress,
  metrics: MetricsSource,
  options: { readonly allowedHosts?: readonly string[]; readonly logger?: HttpLogger } = {},
): Promise<MetricsListener> {
  const app = createMetricsApp(metrics, {
    allowedHosts: [...(options.allowedHosts ?? []), address.host],
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: address.host, port: address.port }, () =>
      resolve(started),
    );
    started.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as import('node:http').Server).closeAllConnections();
      }),
  };
}
