import {
  type Context,
  createTraceState,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  trace,
} from '@opentelemetry/api';

/**
 * The W3C trace context of a span as it travels between threads and hosts: handed to a gateway
 * worker with a call, stored with a queued process, sent to an upstream.
 */
export interface TraceCarrier {
  /** `00-<trace id>-<span id>-<flags>`. */
  readonly traceparent: string;
  /** The vendors' `tracestate`, when the span has one. */
  readonly tracestate?: string;
}

/** Version 00 of W3C `traceparent`; the all-zero ids are refused by `isSpanContextValid`. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** Longest `tracestate` kept: 32 members of at most 256 characters would be 8 KiB; 512 is W3C's advice. */
const MAX_TRACESTATE = 512;

/** The context's span as a carrier (undefined: no valid span in it). */
export function carrierOf(ctx: Context): TraceCarrier | undefined {
  const span = trace.getSpanContext(ctx);
  return span && isSpanContextValid(span) ? carrierOfSpan(span) : undefined;
}

/** A span context as a carrier. */
export function carrierOfSpan(span: SpanContext): TraceCarrier {
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${span.traceId}-${span.spanId}-${flags}`;
  const state = span.traceState?.serialize();
  return state ? { traceparent, tracestate: state } : { traceparent };
}

/**
 * The remote span a carrier names, set on `base` (the root context by default); `base` itself when
 * the carrier is absent or malformed (hostile text: a caller's header, a stored row).
 *
 * @example
 * ```ts
 * const parent = contextOf({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
 * tracer.startSpan('child', {}, parent);
 * ```
 */
export function contextOf(carrier: unknown, base: Context = ROOT_CONTEXT): Context {
  const span = spanContextOf(carrier);
  return span ? trace.setSpanContext(base, span) : base;
}

/** The remote span context a carrier names, or undefined. */
export function spanContextOf(carrier: unknown): SpanContext | undefined {
  if (typeof carrier !== 'object' || carrier === null) return undefined;
  const { traceparent, tracestate } = carrier as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const span: SpanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16),
    isRemote: true,
    ...(typeof tracestate === 'string' && tracestate.length > 0 && tracestate.length <= MAX_TRACESTATE
      ? { traceState: createTraceState(tracestate) }
      : {}),
  };
  return isSpanContextValid(span) ? span : undefined;
}
