import type { AttributeValue, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { RelayedSpan } from './relayed-span';

type Attrs = Readonly<Record<string, AttributeValue>>;

/**
 * A finished span as it crosses to the exporter thread: a {@link RelayedSpan} as an array (the
 * structured clone of an array costs less than of an object's keys). Empty strings and 0 stand
 * for what is absent. The server's exporter thread reads it (`readableOf` in `@cyrnel/server`).
 */
export type PackedSpan = readonly [
  name: string,
  kind: SpanKind,
  traceId: string,
  spanId: string,
  traceFlags: number,
  traceState: string,
  parentSpanId: string,
  parentRemote: 0 | 1,
  startMs: number,
  endMs: number,
  attributes: Attrs,
  events: readonly (readonly [name: string, timeMs: number, attributes: Attrs])[],
  statusCode: SpanStatusCode,
  statusMessage: string,
  scopeName: string,
  scopeVersion: string,
];

/** A span as the exporter thread takes it. */
export function packSpan(span: RelayedSpan): PackedSpan {
  const events: [string, number, Attrs][] = [];
  for (const event of span.events) events.push([event.name, event.timeMs, event.attributes]);
  return [
    span.name,
    span.kind,
    span.traceId,
    span.spanId,
    span.traceFlags,
    span.traceState ?? '',
    span.parentSpanId ?? '',
    span.parentRemote ? 1 : 0,
    span.startMs,
    span.endMs,
    span.attributes,
    events,
    span.status.code,
    span.status.message ?? '',
    span.scope.name,
    span.scope.version ?? '',
  ];
}

/** Options of {@link createSpanBatcher}. */
export interface SpanBatcherOptions<T> {
  /** Most spans in one batch: a full batch goes at once. */
  readonly max: number;
  /** Longest a span waits for its batch (ms). */
  readonly delayMs: number;
  /** Send one batch (never empty). */
  readonly post: (batch: T[]) => void;
}

/** Spans gathered into batches: one message per batch, never one per span. */
export interface SpanBatcher<T> {
  add(span: T): void;
  /** Send what waits now. */
  flush(): void;
}

/**
 * Gather finished spans into batches of at most `max`, each sent `delayMs` after its first span
 * at the latest (the timer never holds the process open).
 *
 * @example
 * ```ts
 * const batcher = createSpanBatcher({ max: 128, delayMs: 20, post: (batch) => port.postMessage(batch) });
 * batcher.add(packSpan(span));
 * ```
 */
export function createSpanBatcher<T>(options: SpanBatcherOptions<T>): SpanBatcher<T> {
  let pending: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    options.post(batch);
  };
  return {
    add(span) {
      const count = pending.push(span);
      if (count >= options.max) flush();
      else if (count === 1) timer = setTimeout(flush, options.delayMs).unref();
    },
    flush,
  };
}
