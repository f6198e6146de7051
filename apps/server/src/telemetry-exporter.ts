import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { createSpanBatcher, type PackedSpan, packSpan, type RelayedSpan } from '@cyrnel/core';
import type { ServerLogger } from './create-logger';
import {
  EXPORTER_THREAD_URL,
  type ExporterSettings,
  type FromExporter,
  type ToExporter,
} from './telemetry-exporter-protocol';

/** Most spans in one message to the exporter thread. */
const BATCH = 256;
/** Longest a finished span waits on the main thread for its batch (the exporter batches for seconds anyway). */
const BATCH_MS = 25;
/** Restarts of a dying exporter thread allowed within {@link RESTART_WINDOW_MS}; past them spans are dropped. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

/** Options of {@link startExporterThread}. */
export interface ExporterThreadOptions extends ExporterSettings {
  /** A failed export, as the exporter reported it (the caller rate-limits the log). */
  readonly onExportError: (message: string) => void;
  readonly logger: ServerLogger;
  /** Default: the built thread. */
  readonly threadUrl?: URL;
}

/** The main thread's side of the exporter thread, which is started again when it dies. */
export interface ExporterThread {
  /** A span finished on the main thread: sent with others in one message. */
  add(span: RelayedSpan): void;
  /** Spans a gateway worker sent through the main thread (its port had closed). */
  addAll(spans: readonly RelayedSpan[]): void;
  /** A port for a gateway worker, whose spans then go straight to the thread (undefined: none running). */
  port(): MessagePort | undefined;
  /** Send what waits and have the thread export what it holds. */
  flush(): Promise<void>;
  /** Send what waits, have the thread export it all and stop it; the thread is then terminated. */
  close(): Promise<void>;
  /** The thread running now (tests stop it to see it replaced). */
  readonly thread: Worker | undefined;
  /** Spans and messages sent to the thread, and times it was replaced. */
  stats(): {
    readonly spans: number;
    readonly batches: number;
    readonly restarts: number;
    readonly dropped: number;
  };
}

/**
 * Start the exporter thread of tracing: finished spans are gathered on the main thread into
 * batches (256 spans, or 25 ms) and sent in one message each; the thread turns them into the
 * SDK's spans and exports them over OTLP/HTTP. A thread that dies is replaced with a warning (its
 * unsent spans are lost); one that dies more than 3 times a minute is not, and spans are dropped
 * until a minute has passed.
 *
 * @example
 * ```ts
 * const exporter = startExporterThread({ url, resource, onExportError, logger });
 * trace.setGlobalTracerProvider(createRelayTracerProvider((span) => exporter.add(span), { sampler }));
 * ```
 */
export function startExporterThread(options: ExporterThreadOptions): ExporterThread {
  let worker: Worker | undefined;
  let closed = false;
  let nextId = 1;
  const waiting = new Map<number, () => void>();
  const deaths: number[] = [];
  const counts = { spans: 0, batches: 0, restarts: 0, dropped: 0 };

  const start = () => {
    const own = new Worker(options.threadUrl ?? EXPORTER_THREAD_URL, {
      workerData: {
        url: options.url,
        protocol: options.protocol,
        resource: options.resource,
        ...(options.batch ? { batch: options.batch } : {}),
      } satisfies ExporterSettings,
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    own.unref();
    own.on('message', (message: FromExporter) => {
      if (message.t === 'warn') options.onExportError(message.message);
      else if (message.t === 'done') {
        waiting.get(message.id)?.();
        waiting.delete(message.id);
      }
    });
    own.on('error', (error) =>
      options.logger.warn('tracing: the exporter thread failed', { error: String(error).slice(0, 200) }),
    );
    own.once('exit', () => {
      if (own !== worker) return;
      worker = undefined;
      for (const resolve of waiting.values()) resolve();
      waiting.clear();
      if (closed) return;
      const now = Date.now();
      deaths.push(now);
      while (deaths.length > 0 && now - (deaths[0] as number) > RESTART_WINDOW_MS) deaths.shift();
      if (deaths.length > MAX_RESTARTS) {
        options.logger.warn('tracing: the exporter thread keeps stopping; spans are dropped for a minute', {
          stops: deaths.length,
        });
        return;
      }
      options.logger.warn(
        'tracing: the exporter thread stopped; starting another (its unsent spans are lost)',
      );
      counts.restarts++;
      worker = start();
    });
    return own;
  };
  /** The thread, started again when it stopped a minute ago or more. */
  const live = (): Worker | undefined => {
    if (!worker && !closed) {
      const last = deaths.at(-1);
      if (last === undefined || Date.now() - last > RESTART_WINDOW_MS) {
        deaths.length = 0;
        worker = start();
      }
    }
    return worker;
  };
  const send = (message: ToExporter, transfer?: MessagePort[]) => {
    const own = live();
    if (!own) return false;
    try {
      own.postMessage(message, transfer);
      return true;
    } catch {
      return false;
    }
  };
  const batcher = createSpanBatcher<PackedSpan>({
    max: BATCH,
    delayMs: BATCH_MS,
    post: (batch) => {
      if (send(batch)) {
        counts.batches++;
        counts.spans += batch.length;
      } else counts.dropped += batch.length;
    },
  });
  const ask = (t: 'flush' | 'shutdown') =>
    new Promise<void>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      if (!send({ t, id })) {
        waiting.delete(id);
        resolve();
      }
    });
  worker = start();

  return {
    add(span) {
      batcher.add(packSpan(span));
    },
    addAll(spans) {
      for (const span of spans) batcher.add(packSpan(span));
    },
    port() {
      if (closed || !live()) return undefined;
      const { port1, port2 } = new MessageChannel();
      return send({ t: 'port', port: port1 }, [port1]) ? port2 : undefined;
    },
    async flush() {
      batcher.flush();
      await ask('flush');
    },
    async close() {
      if (closed) return;
      batcher.flush();
      closed = true;
      await ask('shutdown');
      const own = worker;
      worker = undefined;
      await own?.terminate();
    },
    get thread() {
      return worker;
    },
    stats: () => ({ ...counts }),
  };
}
