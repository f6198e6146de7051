import { randomFillSync } from 'node:crypto';
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  isSpanContextValid,
  type Link,
  type Span,
  type SpanAttributes,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  TraceFlags,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { RelayedSpan } from './relayed-span';

/** Attributes and events kept per span; more are dropped. */
const MAX_ATTRIBUTES = 64;
const MAX_EVENTS = 32;

/** Epoch milliseconds of a time input (now when absent). */
function epochMs(time?: TimeInput): number {
  if (time === undefined) return performance.timeOrigin + performance.now();
  if (typeof time === 'number') return time < 1e11 ? performance.timeOrigin + time : time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1000 + time[1] / 1e6;
}

/** Random bytes drawn at once for ids: one `randomFillSync` per 256 spans, not two per span. */
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;

/** `bytes` random bytes as lower-case hex (a trace id: 16, a span id: 8). */
function randomHex(bytes: number): string {
  if (poolAt + bytes > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const hex = POOL.toString('hex', poolAt, poolAt + bytes);
  poolAt += bytes;
  // All zeros is an invalid id (W3C): vanishingly rare, drawn again.
  return /^0+$/.test(hex) ? randomHex(bytes) : hex;
}

/** Copy the defined attributes into `target` (which holds `count`), up to the limit; the new count. */
function keep(
  target: Record<string, AttributeValue>,
  count: number,
  attributes: Attributes | undefined,
): number {
  if (!attributes) return count;
  let kept = count;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined || value === null) continue;
    if (!(key in target)) {
      if (kept >= MAX_ATTRIBUTES) continue;
      kept++;
    }
    target[key] = value;
  }
  return kept;
}

/** A recording span that, once ended, is handed to `send` as a {@link RelayedSpan}. */
class RelaySpan implements Span {
  private readonly attributes: Record<string, AttributeValue> = {};
  private attributeCount = 0;
  private readonly events: RelayedSpan['events'][number][] = [];
  private status: SpanStatus = { code: SpanStatusCode.UNSET };
  private ended = false;
  private readonly startMs: number;

  constructor(
    private name: string,
    private readonly kind: SpanKind,
    private readonly own: SpanContext,
    private readonly parent: SpanContext | undefined,
    options: SpanOptions,
    private readonly scope: RelayedSpan['scope'],
    private readonly send: (span: RelayedSpan) => void,
  ) {
    this.startMs = epochMs(options.startTime);
    this.attributeCount = keep(this.attributes, 0, options.attributes);
  }
  spanContext(): SpanContext {
    return this.own;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (this.ended || value === undefined || value === null) return this;
    if (!(key in this.attributes)) {
      if (this.attributeCount >= MAX_ATTRIBUTES) return this;
      this.attributeCount++;
    }
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: SpanAttributes): this {
    if (!this.ended) this.attributeCount = keep(this.attributes, this.attributeCount, attributes);
    return this;
  }
  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    if (this.ended || this.events.length >= MAX_EVENTS) return this;
    const timeGiven =
      typeof attributesOrTime === 'number' ||
      attributesOrTime instanceof Date ||
      Array.isArray(attributesOrTime);
    const attributes: Record<string, AttributeValue> = {};
    if (!timeGiven) keep(attributes, 0, attributesOrTime as SpanAttributes | undefined);
    this.events.push({
      name,
      timeMs: epochMs(timeGiven ? (attributesOrTime as TimeInput) : time),
      attributes,
    });
    return this;
  }
  addLink(_link: Link): this {
    return this;
  }
  addLinks(_links: Link[]): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (!this.ended) this.status = status;
    return this;
  }
  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }
  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    const traceState = this.own.traceState?.serialize();
    this.send({
      name: this.name,
      kind: this.kind,
      traceId: this.own.traceId,
      spanId: this.own.spanId,
      traceFlags: this.own.traceFlags,
      ...(traceState ? { traceState } : {}),
      ...(this.parent
        ? { parentSpanId: this.parent.spanId, parentRemote: this.parent.isRemote === true }
        : {}),
      startMs: this.startMs,
      endMs: Math.max(this.startMs, epochMs(endTime)),
      attributes: this.attributes,
      events: this.events,
      status: this.status.message
        ? { code: this.status.code, message: this.status.message }
        : { code: this.status.code },
      scope: this.scope,
    });
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(): void {
    // Exceptions carry messages and stacks, which may quote parameter values: not relayed.
  }
}

/**
 * A tracer provider for threads without an SDK (the egress gateway's workers): spans that continue
 * a sampled trace record and, once ended, go to `send`; others only carry the trace on (their
 * context still propagates to the upstream). Built on `@opentelemetry/api` alone.
 *
 * @example
 * ```ts
 * trace.setGlobalTracerProvider(createRelayTracerProvider((span) => port.postMessage(span)));
 * ```
 */
export function createRelayTracerProvider(send: (span: RelayedSpan) => void): TracerProvider {
  return {
    getTracer(name, version) {
      const scope = version === undefined ? { name } : { name, version };
      return createRelayTracer(scope, send);
    },
  };
}

function createRelayTracer(scope: RelayedSpan['scope'], send: (span: RelayedSpan) => void): Tracer {
  const startSpan = (name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span => {
    const parent = options.root ? undefined : trace.getSpanContext(ctx);
    const valid = parent && isSpanContextValid(parent) ? parent : undefined;
    const own: SpanContext = {
      traceId: valid?.traceId ?? randomHex(16),
      spanId: randomHex(8),
      traceFlags: valid ? valid.traceFlags : TraceFlags.SAMPLED,
      ...(valid?.traceState ? { traceState: valid.traceState } : {}),
    };
    // Not sampled upstream: nothing is recorded, the trace still goes on.
    if ((own.traceFlags & TraceFlags.SAMPLED) === 0) return trace.wrapSpanContext(own);
    return new RelaySpan(name, options.kind ?? SpanKind.INTERNAL, own, valid, options, scope, send);
  };
  function startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: unknown[]
  ): ReturnType<F> {
    const fn = rest.pop() as F;
    const [options, ctx] = rest as [SpanOptions | undefined, Context | undefined];
    const parent = ctx ?? context.active();
    const span = startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
  return { startSpan, startActiveSpan: startActiveSpan as Tracer['startActiveSpan'] };
}
