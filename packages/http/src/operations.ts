import type { LogLine } from '@cyrnel/sdk/api';

/**
 * The server's recent log lines, as `GET /logs` reads them: a bounded buffer the embedder keeps
 * (`@cyrnel/server` keeps one of every line its logger writes, secrets already removed).
 *
 * @example
 * ```ts
 * const logs: LogSource = { capacity: 2000, lines: () => ring.slice(), subscribe: (listener) => ring.on(listener) };
 * createApp(host, { logs });
 * ```
 */
export interface LogSource {
  /** Most lines kept; older ones are dropped as new ones come. */
  readonly capacity: number;
  /** The lines kept now, oldest first (`seq` increasing). */
  lines(): readonly LogLine[];
  /**
   * Call `listener` with every line kept from now on, synchronously as it is written; answers
   * the unsubscribe.
   */
  subscribe(listener: (line: LogLine) => void): () => void;
}

/**
 * The server's metrics in the Prometheus text format, as `GET /metrics` answers them
 * (`@cyrnel/server` renders a `prom-client` registry).
 *
 * @example
 * ```ts
 * const metrics: MetricsSource = { contentType: registry.contentType, text: () => registry.metrics() };
 * createApp(host, { metrics });
 * ```
 */
export interface MetricsSource {
  /** The answer's `Content-Type` (`text/plain; version=0.0.4; charset=utf-8`). */
  readonly contentType: string;
  /** The metrics now. */
  text(): Promise<string>;
}

/**
 * One request the app answered, for the embedder's metrics: its method, the route it matched
 * (the route's pattern, `/processes/:id`, never the path itself; `*` when none did), its status
 * and how long it took until the answer's headers (a stream's whole life is not counted).
 */
export interface RequestObservation {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly durationMs: number;
}
