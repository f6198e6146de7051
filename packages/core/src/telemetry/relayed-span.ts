import type { AttributeValue, SpanKind, SpanStatusCode } from '@opentelemetry/api';

/**
 * A span finished in a worker thread of the egress gateway (an adapter's request to its upstream),
 * as it crosses to the main thread, where the embedder's SDK exports it with the host's own spans.
 * Times are epoch milliseconds (fractions kept).
 */
export interface RelayedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly traceState?: string;
  /** The parent's span id (in the same trace), absent for a root span. */
  readonly parentSpanId?: string;
  /** Whether the parent came from another thread or host (always the call's span on the main thread). */
  readonly parentRemote?: boolean;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly events: readonly {
    readonly name: string;
    readonly timeMs: number;
    readonly attributes: Readonly<Record<string, AttributeValue>>;
  }[];
  readonly status: { readonly code: SpanStatusCode; readonly message?: string };
  /** The instrumentation that made it (`@cyrnel/adapter-openapi`). */
  readonly scope: { readonly name: string; readonly version?: string };
}
