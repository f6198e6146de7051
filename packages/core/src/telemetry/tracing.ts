import type { MessagePort } from 'node:worker_threads';
import type { ErrorReason, ExecutionExitState } from '@cyrnel/sdk';
import type { CallDecision, ErrorCode, ProcessRecord } from '@cyrnel/sdk/api';
import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { version } from '../../package.json';
import { argumentShape } from './argument-shape';
import { ATTR, SPAN } from './attributes';
import { honoursPresetSpanIds, PRESET_SPAN_ID } from './relay-tracer';
import type { RelayedSpan } from './relayed-span';
import { carrierOf, carrierOfSpan, contextOf, type TraceCarrier } from './trace-carrier';

/**
 * Tracing of the host (`HostOptions.tracing`): spans of runs and tool calls through the global
 * OpenTelemetry API (`@opentelemetry/api`), which the embedder sets up with an SDK and an
 * exporter. Without it nothing is traced and nothing is measured.
 */
export interface TracingOptions {
  /**
   * Record the shape of each tool call's parameters (keys and value types, every value replaced)
   * as `cyrnel.call.argument_shape`. Default false: no attribute derived from parameters.
   */
  readonly argumentShapes?: boolean;
  /**
   * Where the spans finished in the egress gateway's worker threads go (an adapter's HTTP request
   * to its upstream): the embedder hands them to its SDK's span processor. Absent: dropped, and
   * the workers record none.
   */
  readonly exportRelayed?: (spans: readonly RelayedSpan[]) => void;
  /**
   * A port to the embedder's exporter thread, one per gateway worker started: the worker sends its
   * finished spans there straight, as batches of `PackedSpan`s, instead of through the main thread
   * (`exportRelayed` then takes only those of a worker whose port closed, and the worker is offered
   * a new port, at most once a second, when they come). Absent or undefined: through the main
   * thread.
   */
  readonly exportPort?: () => MessagePort | undefined;
}

/** How a traced tool call ended. */
export interface TracedOutcome {
  readonly ok: boolean;
  readonly errorCode?: ErrorCode | null;
  readonly errorReason?: ErrorReason | null;
}

/** The span of one tool call. */
export interface CallTrace {
  /** The call's span as the active context of what it does (the adapter's own spans). */
  readonly context: Context;
  /** The call's span as a carrier, for a gateway worker. */
  readonly carrier: TraceCarrier | undefined;
  /** Record the shape of the parameters (only with `argumentShapes`). */
  parameters(parameters: unknown): void;
  /** Record a shape the gateway worker computed (only with `argumentShapes`). */
  shape(shape: string | undefined): void;
  end(outcome: TracedOutcome): void;
}

/** The span of one run of a process. */
export interface RunTrace {
  /** The run started running (the environment's `running`). */
  running(): void;
  /**
   * Open the span of a tool call of the run, started at `startedMs` (epoch ms), with `spanId` when
   * one was drawn for it already (see `presetSpanIds`).
   */
  call(
    serviceId: string,
    toolId: string,
    decision: CallDecision | null,
    startedMs: number,
    spanId?: string,
  ): CallTrace;
  /**
   * Whether a call's span takes a span id drawn before it (the tracer honours `PRESET_SPAN_ID`):
   * then a gateway worker may make a kept call first and its span be recorded after.
   */
  readonly presetSpanIds: boolean;
  /** The run ended. */
  end(exitState: ExecutionExitState, errorReason: ErrorReason | null): void;
}

/** What a run is traced from. */
export interface TracedRun {
  readonly record: Pick<ProcessRecord, 'id' | 'keyId' | 'principalId' | 'createdAt' | 'hostId'>;
  /** What {@link Tracing.capture} stored with the process (null: nothing). */
  readonly stored: string | null;
  /** Taken from the shared queue (several hosts), possibly created on another host. */
  readonly claimed: boolean;
}

/** The tracing of a host: what runs and tool calls record. */
export interface Tracing {
  readonly enabled: boolean;
  /** The active span as stored with a process created or re-run now (null: none or off). */
  capture(queuedAt: number): string | null;
  /** Start the span of a run (undefined when off). */
  startRun(run: TracedRun): RunTrace | undefined;
}

/** Tracing that records nothing. */
export const NO_TRACING: Tracing = {
  enabled: false,
  capture: () => null,
  startRun: () => undefined,
};

/** The stored form of a process's trace context: the carrier and when it was queued. */
interface StoredTrace extends TraceCarrier {
  readonly queuedAt?: number;
}

/** Longest stored text read back (a carrier is under 600 characters). */
const MAX_STORED = 2048;

function readStored(text: string | null): StoredTrace | undefined {
  if (text === null || text.length > MAX_STORED) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as StoredTrace) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Create the host's tracing (see {@link TracingOptions}); {@link NO_TRACING} when `options` is
 * undefined.
 *
 * @example
 * ```ts
 * const tracing = createTracing({ argumentShapes: false });
 * const stored = tracing.capture(Date.now()); // with the process row
 * const run = tracing.startRun({ record, stored, claimed: false });
 * ```
 */
export function createTracing(options: TracingOptions | undefined, hostId?: string): Tracing {
  if (!options) return NO_TRACING;
  const shapes = options.argumentShapes === true;
  let tracer: Tracer | undefined;
  const tracerOf = () => {
    tracer ??= trace.getTracer('@cyrnel/core', version);
    return tracer;
  };
  return {
    enabled: true,
    capture(queuedAt) {
      const carrier = carrierOf(context.active());
      return carrier ? JSON.stringify({ ...carrier, queuedAt }) : null;
    },
    startRun(run) {
      return startRun(tracerOf(), run, shapes, hostId);
    },
  };
}

function startRun(tracer: Tracer, run: TracedRun, shapes: boolean, hostId?: string): RunTrace {
  const { record } = run;
  const stored = readStored(run.stored);
  const created = Date.parse(record.createdAt);
  const queuedAt = typeof stored?.queuedAt === 'number' ? stored.queuedAt : created;
  const dispatched = Date.now();
  const span = tracer.startSpan(
    SPAN.process,
    {
      kind: SpanKind.INTERNAL,
      startTime: Math.min(queuedAt, dispatched),
      attributes: {
        [ATTR.processId]: record.id,
        ...(record.keyId ? { [ATTR.keyId]: record.keyId } : {}),
        ...(record.principalId ? { [ATTR.principal]: record.principalId } : {}),
        ...(hostId ? { [ATTR.hostId]: hostId } : {}),
        ...(run.claimed ? { [ATTR.claimed]: true } : {}),
      },
    },
    contextOf(stored),
  );
  const runContext = trace.setSpan(ROOT_CONTEXT, span);
  const callAttributes = runAttributes(record);
  let runningAt: number | undefined;
  let calls = 0;
  return {
    presetSpanIds: honoursPresetSpanIds(),
    running() {
      runningAt = Date.now();
    },
    call(serviceId, toolId, decision, startedMs, spanId) {
      calls++;
      return startCall(tracer, runContext, {
        serviceId,
        toolId,
        decision,
        startedMs,
        shapes,
        runAttributes: callAttributes,
        ...(spanId === undefined ? {} : { spanId }),
      });
    },
    end(exitState, errorReason) {
      const endedAt = Date.now();
      const startedAt = Math.min(queuedAt, dispatched);
      if (runningAt !== undefined) {
        tracer
          .startSpan(SPAN.queued, { startTime: startedAt }, runContext)
          .end(Math.max(startedAt, runningAt));
        span.setAttribute(ATTR.queuedMs, Math.max(0, runningAt - startedAt));
        span.setAttribute(ATTR.runningMs, Math.max(0, endedAt - runningAt));
      } else span.setAttribute(ATTR.queuedMs, Math.max(0, endedAt - startedAt));
      span.setAttribute(ATTR.exitState, exitState);
      span.setAttribute(ATTR.calls, calls);
      if (errorReason) span.setAttribute(ATTR.errorReason, errorReason);
      if (exitState !== 'success')
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorReason ?? exitState });
      span.end(endedAt);
    },
  };
}

interface CallStart {
  readonly serviceId: string;
  readonly toolId: string;
  readonly decision: CallDecision | null;
  readonly startedMs: number;
  readonly shapes: boolean;
  readonly runAttributes: Attributes;
  /** Its span id, drawn before (see `PRESET_SPAN_ID`). */
  readonly spanId?: string;
}

/** The attributes every tool call of a run carries (who and which process), built once a run. */
function runAttributes(record: TracedRun['record']): Attributes {
  const attributes: Attributes = { [ATTR.processId]: record.id };
  if (record.keyId) attributes[ATTR.keyId] = record.keyId;
  if (record.principalId) attributes[ATTR.principal] = record.principalId;
  return attributes;
}

function startCall(tracer: Tracer, parent: Context, call: CallStart): CallTrace {
  const { serviceId, toolId, decision } = call;
  const qualified = `${serviceId}.${toolId}`;
  // One object, filled in place (the SDK copies it once): spreads of computed keys cost more here
  // than the rest of the span.
  const attributes: Attributes = {
    [ATTR.operation]: 'execute_tool',
    [ATTR.toolName]: qualified,
    [ATTR.service]: serviceId,
    [ATTR.tool]: toolId,
  };
  for (const key in call.runAttributes) attributes[key] = call.runAttributes[key];
  if (decision) {
    attributes[ATTR.policy] = decision.policy;
    attributes[ATTR.policyRule] = decision.rule;
    attributes[ATTR.policyOutcome] = decision.outcome;
    if (decision.detail) attributes[ATTR.policyDetail] = decision.detail;
    if (decision.approvalId) attributes[ATTR.approvalId] = decision.approvalId;
    if (typeof decision.decidedBy === 'string') attributes[ATTR.approvalDecidedBy] = decision.decidedBy;
  }
  const span: Span = tracer.startSpan(
    `${SPAN.toolCall} ${qualified}`,
    { kind: SpanKind.INTERNAL, startTime: call.startedMs, attributes },
    call.spanId === undefined ? parent : parent.setValue(PRESET_SPAN_ID, call.spanId),
  );
  // When it was decided (an approval may come minutes after the call); the rest is on the span.
  if (decision) span.addEvent(SPAN.policyEvent, { [ATTR.policyOutcome]: decision.outcome }, call.startedMs);
  // Both made on first use: a call through a gateway worker needs the carrier only, one the host
  // makes itself the context only.
  let callContext: Context | undefined;
  let carrier: TraceCarrier | undefined | null = null;
  let ended = false;
  return {
    get context() {
      callContext ??= trace.setSpan(parent, span);
      return callContext;
    },
    get carrier() {
      if (carrier === null) {
        const own = span.spanContext();
        carrier = isSpanContextValid(own) ? carrierOfSpan(own) : undefined;
      }
      return carrier;
    },
    parameters(parameters) {
      if (call.shapes && span.isRecording()) span.setAttribute(ATTR.argumentShape, argumentShape(parameters));
    },
    shape(shape) {
      if (call.shapes && typeof shape === 'string')
        span.setAttribute(ATTR.argumentShape, shape.slice(0, 2048));
    },
    end(outcome) {
      if (ended) return;
      ended = true;
      span.setAttribute(ATTR.callOk, outcome.ok);
      if (!outcome.ok) {
        const reason = outcome.errorReason ?? outcome.errorCode ?? 'failed';
        span.setAttribute(ATTR.errorType, reason);
        if (outcome.errorReason) span.setAttribute(ATTR.errorReason, outcome.errorReason);
        if (outcome.errorCode) span.setAttribute(ATTR.errorCode, outcome.errorCode);
        span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
      }
      span.end();
    },
  };
}
