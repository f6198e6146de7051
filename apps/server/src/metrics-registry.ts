import type { HostMetrics, HostStats } from '@cyrnel/core';
import type { MetricsSource, RequestObservation } from '@cyrnel/http';
import type { LogLine } from '@cyrnel/sdk/api';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { hostMetrics } from './metrics-host';
import { processMetrics } from './metrics-process';
import { statsMetrics } from './metrics-stats';
import { type StoreObserver, storeMetrics } from './metrics-store';
import { sharedRenders } from './shared-renders';

/** How long one reading of the process's metrics (files, handles, memory, CPU) serves scrapes. */
const PROCESS_METRICS_REUSE_MS = 1000;

/** Seconds until an HTTP answer's headers. */
const REQUEST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What {@link createServerMetrics} gives each part of the server to report to, and the text of a scrape. */
export interface ServerMetrics {
  /** `GET /metrics` (and `--metrics-listen`): every metric of this server and of the Node.js process. */
  readonly source: MetricsSource;
  /** Runs and tool calls, as the core reports them (`createHost({ metrics })`). */
  readonly host: HostMetrics;
  /** Store calls (`timedStore`). */
  readonly store: StoreObserver;
  /** HTTP requests (`createApp({ onRequest })`). */
  observeRequest(request: RequestObservation): void;
  /** Log lines kept (`createLogRing({ onLine })`). */
  countLine(line: LogLine): void;
  /** Read the host's gauges from `read` at every scrape (once the host started). */
  watch(read: () => Promise<HostStats>): void;
}

/** Options of {@link createServerMetrics}. */
export interface ServerMetricsOptions {
  readonly version: string;
  /** This host's id (`--host-id`), a label of `cyrnel_info`. */
  readonly hostId: string;
}

/**
 * The Prometheus metrics of one server: a registry of its own (several servers in one process
 * keep theirs apart) merged with the process's Node.js metrics. Every label is bounded: states,
 * exit states, reasons, classes, methods, route patterns, store ports and operations, and
 * installed services and tools (at most 2,000 pairs); never a process id or a key id.
 *
 * @example
 * ```ts
 * const metrics = createServerMetrics({ version: '0.1.0', hostId: 'web-1' });
 * const app = createApp(host, { metrics: metrics.source, onRequest: metrics.observeRequest });
 * ```
 */
export function createServerMetrics(options: ServerMetricsOptions): ServerMetrics {
  const own = new Registry();
  const registers = [own];
  new Gauge({
    name: 'cyrnel_info',
    help: 'This server: its version and host id (always 1)',
    labelNames: ['version', 'host_id'] as const,
    registers,
  }).set({ version: options.version, host_id: options.hostId }, 1);
  const requests = new Counter({
    name: 'cyrnel_http_requests_total',
    help: "HTTP requests answered, by method, route pattern ('/processes/:id'; '*' when none matched) and status",
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const requestSeconds = new Histogram({
    name: 'cyrnel_http_request_seconds',
    help: "Seconds until an HTTP answer's headers, by method and route pattern (a stream's life is not counted)",
    labelNames: ['method', 'route'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const lines = new Counter({
    name: 'cyrnel_log_lines_total',
    help: 'Log lines kept for GET /logs, by level',
    labelNames: ['level'] as const,
    registers,
  });
  const watch = statsMetrics(own);
  const host = hostMetrics(own);
  const store = storeMetrics(own);
  const node = processMetrics();
  // Scrapes that come while one renders share the next render: a flood of them costs two. The
  // process's own metrics read the process's open files and handles (a directory listing as long
  // as there are sockets): a reading of the last second serves every scrape.
  const nodeText = sharedRenders(() => node.metrics(), { reuseMs: PROCESS_METRICS_REUSE_MS });
  const ownText = sharedRenders(() => own.metrics());
  return {
    source: {
      contentType: own.contentType,
      // As one registry of both renders them (`Registry.merge`): each separated by a blank line.
      text: async () => {
        const [process, server] = await Promise.all([nodeText(), ownText()]);
        return `${process}\n${server}`;
      },
    },
    host,
    store,
    observeRequest(request) {
      const labels = { method: request.method, route: request.route };
      requests.inc({ ...labels, status: String(request.status) });
      requestSeconds.observe(labels, request.durationMs / 1000);
    },
    countLine: (line) => lines.inc({ level: line.level }),
    watch,
  };
}
