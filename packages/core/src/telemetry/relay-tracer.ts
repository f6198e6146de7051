import { randomFillSync } from 'node:crypto';
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  createContextKey,
  INVALID_SPAN_CONTEXT,
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

/**
 * A sampler as `@opentelemetry/sdk-trace`'s are (`ParentBasedSampler`, …): decision 2 records and
 * samples, 0 and 1 record nothing (the span only carries the trace on, unsampled).
 */
export interface RelaySampler {
  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): {
    readonly decision: number;
    readonly attributes?: Attributes;
    readonly traceState?: SpanContext['traceState'];
  };
}

/** Options of {@link createRelayTracerProvider}. */
export interface RelayTracerOptions {
  /** Decides root spans and the rest as the SDK would (absent: a span is sampled as its parent, a root always). */
  readonly sampler?: RelaySampler;
}

/** The SDK's key of "suppress tracing" (an exporter's own requests): spans under it record nothing. */
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');
/**
 * A span id chosen before its span starts, set on the parent context given to `startSpan`: the
 * span takes it (when it is 16 lowercase hex digits, not all zero). The egress gateway's workers
 * draw a kept call's span id themselves, so that their adapter's spans need not wait for the main
 * thread's span to exist.
 */
export const PRESET_SPAN_ID = createContextKey('cyrnel preset span id');
const SPAN_ID = /^(?!0{16})[0-9a-f]{16}$/;
/** Marks the providers whose tracers honour {@link PRESET_SPAN_ID}. */
const HONOURS_PRESETS = Symbol.for('cyrnel.relayTracer.presetSpanIds');

/**
 * Whether the global tracer provider (or `provider`) honours {@link PRESET_SPAN_ID}: one made by
 * {@link createRelayTracerProvider}, registered directly or behind the API's proxy.
 */
export function honoursPresetSpanIds(provider: TracerProvider = trace.getTracerProvider()): boolean {
  const delegate = (provider as { getDelegate?: () => TracerProvider }).getDelegate?.() ?? provider;
  return (delegate as { [HONOURS_PRESETS]?: boolean })[HONOURS_PRESETS] === true;
}

/** `SamplingDecision.RECORD_AND_SAMPLED`. */
const RECORD_AND_SAMPLED = 2;

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

/** Random bytes drawn from the system 4 KiB at a time: a `randomBytes` call per id cost more than the rest of the span. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** A random id of `bytes` bytes in hex, never all zeros (W3C refuses those). */
export function randomId(bytes: 8 | 16): string {
  for (;;) {
    if (poolAt + bytes > pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const id = pool.toString('hex', poolAt, poolAt + bytes);
    poolAt += bytes;
    if (!/^0+$/.test(id)) return id;
  }
}

/** Copy attributes into `target` (`count`: how many it holds), at most {@link MAX_ATTRIBUTES}; the new count. */
function keep(
  target: Record<string, AttributeValue>,
  count: number,
  attributes: Attributes | undefined,
): number {
  if (!attributes) return count;
  let held = count;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined || value === null) continue;
    if (!Object.hasOwn(target, key)) {
      if (held >= MAX_ATTRIBUTES) continue;
      held++;
    }
    target[key] = value;
  }
  return held;
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
    if (!Object.hasOwn(this.attributes, key)) {
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
 * A light tracer provider on `@opentelemetry/api` alone: spans that are sampled record and, once
 * ended, go to `send` as {@link RelayedSpan}s; others only carry the trace on (their context still
 * propagates). The egress gateway's worker threads use it (a span is sampled as its parent), and so
 * does the server's main thread, with the SDK's sampler, in place of the SDK's tracer: what it
 * records is the same, for a fraction of the SDK's work per span.
 *
 * @example
 * ```ts
 * trace.setGlobalTracerProvider(createRelayTracerProvider((span) => port.postMessage(span)));
 * ```
 */
export function createRelayTracerProvider(
  send: (span: RelayedSpan) => void,
  options: RelayTracerOptions = {},
): TracerProvider {
  // One tracer per instrumentation: adapters ask for theirs on every request.
  const tracers = new Map<string, Tracer>();
  const provider: TracerProvider & { readonly [HONOURS_PRESETS]: true } = {
    [HONOURS_PRESETS]: true,
    getTracer(name, version) {
      const key = version === undefined ? name : `${name}\u0000${version}`;
      let tracer = tracers.get(key);
      if (!tracer) {
        const scope = version === undefined ? { name } : { name, version };
        tracer = createRelayTracer(scope, send, options.sampler);
        // Instrumentation names come from code, not from requests; bounded all the same.
        if (tracers.size < 1_000) tracers.set(key, tracer);
      }
      return tracer;
    },
  };
  return provider;
}

function createRelayTracer(
  scope: RelayedSpan['scope'],
  send: (span: RelayedSpan) => void,
  sampler: RelaySampler | undefined,
): Tracer {
  const startSpan = (name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span => {
    if (ctx.getValue(SUPPRESS_TRACING) === true) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentContext = options.root ? trace.deleteSpan(ctx) : ctx;
    const parent = trace.getSpanContext(parentContext);
    const valid = parent && isSpanContextValid(parent) ? parent : undefined;
    const traceId = valid?.traceId ?? randomId(16);
    const kind = options.kind ?? SpanKind.INTERNAL;
    let traceFlags = valid ? valid.traceFlags : TraceFlags.SAMPLED;
    let traceState = valid?.traceState;
    let spanOptions = options;
    if (sampler) {
      const result = sampler.shouldSample(parentContext, traceId, name, kind, options.attributes ?? {}, []);
      traceFlags = result.decision === RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
      if (result.traceState) traceState = result.traceState;
      if (result.attributes && Object.keys(result.attributes).length > 0)
        spanOptions = { ...options, attributes: { ...options.attributes, ...result.attributes } };
    }
    const preset = ctx.getValue(PRESET_SPAN_ID);
    const own: SpanContext = {
      traceId,
      spanId: typeof preset === 'string' && SPAN_ID.test(preset) ? preset : randomId(8),
      traceFlags,
      ...(traceState ? { traceState } : {}),
    };
    // Not sampled: nothing is recorded, the trace still goes on.
    if ((traceFlags & TraceFlags.SAMPLED) === 0) return trace.wrapSpanContext(own);
    return new RelaySpan(name, kind, own, valid, spanOptions, scope, send);
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
