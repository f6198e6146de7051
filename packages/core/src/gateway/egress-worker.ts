// A worker thread of the egress gateway: built as its own entry (`dist/egress-worker.js`) and
// started by `createEgressGateway`. It holds the portable adapters' instances (their config and
// secrets), makes their calls for sandbox processes (over its Unix socket) and for the host's gate
// (over its port), and answers each as JSON text within the answer budget.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { type CatalogChange, isOverlongName } from '@cyrnel/sdk';
import type { ErrorReason } from '@cyrnel/sdk/api';
import { context } from '@opentelemetry/api';
import { createDirectCallRuntime } from '../direct-calls/direct-call-runtime';
import type { PreparedCall } from '../direct-calls/prepared-call';
import { cyrnelError } from '../errors';
import { upstreamStatus } from '../metrics/upstream-status';
import { createRedactor } from '../secrets/redactor';
import { argumentShape } from '../telemetry/argument-shape';
import { packSpan } from '../telemetry/span-batch';
import { contextOf, type TraceCarrier } from '../telemetry/trace-carrier';
import { installWorkerTracing } from '../telemetry/worker-tracing';
import { boundedJson } from './bounded-json';
import type {
  AuditEvent,
  AuditVerdict,
  FromWorker,
  GrantAnswer,
  ReauthorizeAnswer,
  RouteAnswer,
  ToWorker,
  WireError,
  WorkerSettings,
} from './gateway-protocol';
import { toWireError } from './wire-error';
import { createWorkerAudits, keptCallTrace } from './worker-audits';
import { createRouteCache } from './worker-routes';
import { serveEgressSocket } from './worker-socket';

const port = parentPort;
if (!port) throw new Error('egress-worker.js runs as a worker thread of the egress gateway');
const settings = workerData as WorkerSettings;
// Tracing: the adapters' spans (their requests to upstreams) go straight to the server's exporter
// thread over the port it handed over; without one, or once that thread is gone, through the main
// thread.
let spanPort: MessagePort | undefined;
/** Send spans over `port` from now on, until it closes (the exporter thread was replaced). */
const useSpanPort = (port: MessagePort | undefined) => {
  spanPort?.close();
  spanPort = port;
  port?.once('close', () => {
    if (spanPort === port) spanPort = undefined;
  });
  port?.unref();
};
useSpanPort(settings.tracing?.spanPort);
const flushSpans = settings.tracing
  ? installWorkerTracing((spans) => {
      if (spanPort) spanPort.postMessage(spans.map(packSpan));
      else port.postMessage({ t: 'spans', spans } satisfies FromWorker);
    })
  : undefined;

// Adapters stop reading an upstream answer past the budget (the OpenAPI transport does).
const runtime = createDirectCallRuntime({ answerBytes: settings.budget.maxBytes });
const post = (message: FromWorker) => port.postMessage(message);
// Kept decisions, the call journal and the batches of starts and ends for the main thread.
const audits = createWorkerAudits({ ...(settings.journal ? { file: settings.journal } : {}), post });

let nextAsk = 1;
const asked = new Map<number, (value: unknown) => void>();
/** Open `granted?` questions by id: a `yes` is recorded as a grant the moment it arrives. */
const grantQuestions = new Map<number, { readonly token: string; readonly eid: number }>();
/** Ask the main thread; its answer comes back with the same id. */
const ask = (message: (id: number) => FromWorker) =>
  new Promise<unknown>((resolve) => {
    const id = nextAsk++;
    asked.set(id, resolve);
    post(message(id));
  });

// The secrets this worker was handed, so that no answer or error it sends carries one (an
// upstream may echo a key): the main thread's redactor never sees what goes to a sandbox.
const redactor = createRedactor();
/**
 * The tools (`<instance>\0<tool>`) the main thread did not prepare since the last change (not a
 * portable adapter's callable tool): the runtime keeps their refusal until then too, and their
 * callers are told so (`unprepared`). Bounded like the runtime's own cache.
 */
const unprepared = new Set<string>();
const MAX_UNPREPARED = 10_000;
/** Catalog changes seen: a refusal asked before one is not kept after it. */
let changes = 0;
const prepare = async (serviceId: string, toolId: string) => {
  const at = changes;
  const prepared = (await ask((id) => ({ t: 'prepare', id, serviceId, toolId }))) as PreparedCall | undefined;
  if (!prepared && at === changes) {
    if (unprepared.size >= MAX_UNPREPARED) unprepared.clear();
    unprepared.add(`${serviceId}\u0000${toolId}`);
  }
  if (prepared) {
    redactor.remember(`module:${prepared.adapter.moduleUrl}`, prepared.adapter.secrets);
    redactor.remember(`service:${serviceId}`, prepared.service.secrets);
  }
  return prepared;
};
/** A failure as it leaves the worker: coded, and with no secret in its message. */
const failure = (error: unknown): { error: WireError } => {
  const wire = toWireError(error);
  return { error: { ...wire, message: redactor.redact(wire.message) } };
};
// Which connection's adapter state each execution's calls to a service use, as the main thread answered.
const routes = createRouteCache(
  (eid, serviceId, connection) =>
    ask((id) => ({ t: 'route', id, eid, serviceId, connection })) as Promise<RouteAnswer>,
);

/** Whether an adapter's answer is an HTTP 401 (the OpenAPI adapter answers `{ status, headers, body }`). */
const unauthorized = (result: unknown): boolean =>
  typeof result === 'object' && result !== null && (result as { status?: unknown }).status === 401;

/**
 * Run a call; an answer refused with 401 is offered to the main thread, which refreshes the OAuth
 * tokens of its adapter state (when it has any): the call is then made once more, prepared anew.
 */
async function runOnce(
  call: { run(signal: AbortSignal): Promise<unknown> },
  target: string,
  toolId: string,
  parameters: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const since = Date.now();
  const result = await call.run(signal);
  if (!unauthorized(result)) return result;
  const answer = (await ask((id) => ({
    t: 'reauthorize',
    id,
    instanceId: target,
    since,
  }))) as ReauthorizeAnswer;
  if ('error' in answer) throw cyrnelError(answer.error.reason as ErrorReason, answer.error.message);
  if (!answer.retry) return result;
  // Prepared anew (the refreshed tokens are in the new state). A route prepared while another
  // change arrived is not used: prepared once more while changes keep arriving (the refresh's own
  // writes, a burst's second refresh), a little later each time, before the refusal stands.
  const until = Date.now() + REPREPARE_MS;
  for (let attempt = 1; ; attempt++) {
    const again = await runtime.route(target, toolId, parameters, prepare);
    if (again) return again.run(signal);
    if (signal.aborted || Date.now() >= until) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(5 * attempt, 50)));
  }
  return result;
}

/** How long a refused call keeps preparing its route anew (3 quick tries left a burst's 401s standing). */
const REPREPARE_MS = 1_000;

let nextCall = 0;
const callId = () => nextCall++ * settings.workers + settings.index;

/** The main thread's answer to an audited start (and the trace context of the call's span). */
interface Audited {
  readonly ok: AuditVerdict;
  readonly trace?: TraceCarrier;
  readonly keep?: true;
}

/**
 * The answer of one call: JSON text (with the upstream's HTTP status when the adapter answered
 * one), a coded failure, or "through the host".
 */
export type Outcome =
  | { json: string; status: number | null }
  | { error: WireError }
  | { host: true; unprepared?: true };

/**
 * Make one call of a portable adapter. With `eid`, it is audited: its start is acknowledged by the
 * main thread before the request leaves, or, under a decision the main thread said to keep,
 * journaled; its end is queued before the answer goes back, without waiting (the main thread
 * passes a `sync` before it settles the run, so no end is lost).
 */
async function perform(
  eid: number | null,
  serviceId: string,
  toolId: string,
  parameters: Record<string, unknown>,
  signal: AbortSignal,
  stillGranted: () => boolean,
  connection?: unknown,
  hostTrace?: TraceCarrier,
): Promise<Outcome> {
  let trace = hostTrace;
  // Names longer than ids can be: the host's gate refuses them (recorded cut short), never asked here.
  if (isOverlongName(serviceId) || isOverlongName(toolId)) return { host: true };
  // A sandbox's call uses its execution's connection (the main thread decides, from the process's
  // principal); the host's own calls name the connection's adapter state already.
  let target = serviceId;
  if (eid !== null) {
    const routed = await routes.of(eid, serviceId, connection);
    // Refused (another principal's connection, an unknown name): the host's gate refuses it again,
    // recorded among the run's calls.
    if ('error' in routed) return { host: true };
    target = routed.instanceId;
  }
  const call = await runtime.route(target, toolId, parameters, prepare);
  // Not prepared (not a portable adapter's callable tool): its calls go through the host until the
  // next change, which the sandbox's client may take as a hint for the rest of its execution.
  if (!call)
    return unprepared.has(`${target}\u0000${toolId}`) ? { host: true, unprepared: true } : { host: true };
  if (!stillGranted()) {
    call.release();
    return { error: toWireError(refusedAfterGrant()) };
  }
  const id = callId();
  const started = performance.now();
  if (eid !== null) {
    const start: AuditEvent = {
      kind: 'start',
      id,
      serviceId,
      toolId,
      startedAt: Date.now(),
      ...(settings.tracing?.argumentShapes ? { shape: argumentShape(parameters) } : {}),
    };
    // Allowed by a decision kept for this execution and tool: journaled, the request leaves now.
    const kept = audits.kept(eid, serviceId, toolId);
    const traced = kept?.trace ? keptCallTrace(kept.trace) : undefined;
    if (kept && audits.journal(eid, traced ? { ...start, spanId: traced.spanId } : start))
      trace = traced?.carrier;
    else {
      // What was queued goes first: the main thread reads this run's calls in order.
      audits.flush();
      const answer = (await ask((ask) => ({ t: 'audit', id: ask, eid, event: start }))) as Audited;
      const verdict = answer.ok;
      trace = answer.trace;
      // Not simply allowed by the policies: the host's gate decides (asks a person, or blocks).
      if (verdict === 'host' || verdict !== true) call.release();
      if (verdict === 'host') return { host: true };
      if (verdict !== true) return { error: toWireError(refusedAfterGrant()) };
      if (answer.keep) audits.keep(eid, serviceId, toolId, answer.trace ? { trace: answer.trace } : {});
    }
  }
  let outcome: Outcome;
  try {
    // An upstream may echo a credential (a debugging endpoint, an error page): the code gets `***`.
    const send = () => runOnce(call, target, toolId, parameters, signal);
    // Traced: the adapter's own spans are children of the call's span on the main thread.
    const result = await (settings.tracing && trace ? context.with(contextOf(trace), send) : send());
    outcome = {
      json: redactor.redact(boundedJson(result, settings.budget)),
      status: upstreamStatus(result),
    };
  } catch (error) {
    outcome = failure(signal.aborted && !isCoded(error) ? signal.reason : error);
  }
  if (eid !== null) {
    const failed = 'error' in outcome ? outcome.error : undefined;
    const end: AuditEvent & { kind: 'end' } = {
      kind: 'end',
      id,
      ok: !failed,
      errorCode: failed?.code ?? null,
      errorReason: failed?.reason ?? null,
      durationMs: performance.now() - started,
      status: 'status' in outcome ? outcome.status : null,
      // Measured here, off the main thread, on the very text the sandbox receives.
      resultBytes: 'json' in outcome ? Buffer.byteLength(outcome.json) : 0,
    };
    audits.ended(eid, end);
  }
  return outcome;
}

function isCoded(error: unknown): boolean {
  return typeof (error as { reason?: unknown } | null)?.reason === 'string';
}

function refusedAfterGrant() {
  return cyrnelError('process_not_running', 'the execution has ended or was stopped');
}

const sockets = serveEgressSocket({
  socketPath: settings.socketPath,
  maxFrameBytes: Math.max(settings.budget.maxBytes, 1 << 20),
  askGrant: (token, eid) =>
    ask((id) => {
      grantQuestions.set(id, { token, eid });
      return { t: 'granted?', id, token, eid };
    }) as Promise<GrantAnswer>,
  perform: (eid, request, signal, stillGranted) =>
    perform(
      eid,
      request.serviceId,
      request.toolId,
      request.parameters,
      signal,
      stillGranted,
      (request as { connection?: unknown }).connection,
    ),
  onListening: () => post({ t: 'listening' }),
});

/** Host-path calls in flight, by the main thread's id. */
const hostCalls = new Map<number, AbortController>();

async function changed(id: number, change: CatalogChange) {
  routes.clear();
  audits.changed();
  changes++;
  unprepared.clear();
  try {
    await runtime.changed(change);
  } finally {
    post({ t: 'ack', id });
  }
}

port.on('message', (message: ToWorker) => {
  switch (message.t) {
    case 'prepared':
    case 'audited':
    case 'routed':
    case 'reauthorized': {
      const resolve = asked.get(message.id);
      asked.delete(message.id);
      resolve?.(
        message.t === 'prepared'
          ? message.value
          : message.t === 'routed'
            ? message.route
            : message.t === 'reauthorized'
              ? message.answer
              : ({
                  ok: message.ok,
                  ...(message.trace ? { trace: message.trace } : {}),
                  ...(message.keep ? { keep: true } : {}),
                } satisfies Audited),
      );
      return;
    }
    case 'changed':
      void changed(message.id, message.change);
      return;
    case 'journaled':
      audits.stored(message.q);
      return;
    case 'grant': {
      // Recorded here, before the asking call resumes: a revoke sent after this answer is then
      // always handled after the grant it revokes.
      const pending = grantQuestions.get(message.id);
      grantQuestions.delete(message.id);
      if (pending && message.answer === 'yes') sockets.grant(pending.token, pending.eid);
      const resolve = asked.get(message.id);
      asked.delete(message.id);
      resolve?.(message.answer);
      return;
    }
    case 'revoke':
      sockets.revoke(message.token, message.eid);
      if (message.eid !== null) {
        routes.delete(message.eid);
        audits.revoke(message.eid);
      }
      return;
    case 'invoke': {
      const controller = new AbortController();
      hostCalls.set(message.id, controller);
      void perform(
        null,
        message.serviceId,
        message.toolId,
        message.parameters,
        controller.signal,
        () => true,
        undefined,
        message.trace,
      )
        .catch((error: unknown) => failure(error))
        .then((outcome) => {
          hostCalls.delete(message.id);
          post({ t: 'answer', id: message.id, ...outcome });
        });
      return;
    }
    case 'abort':
      hostCalls.get(message.id)?.abort(cyrnelError('process_killed', 'the call was stopped'));
      return;
    case 'span-port':
      useSpanPort(message.port);
      return;
    case 'sync':
      // Every start and end this worker queued goes before this answer (one port, in order).
      audits.flush();
      post({ t: 'ack', id: message.id });
      return;
    case 'close':
      void Promise.allSettled([sockets.close(), runtime.close()]).then(() => {
        audits.close();
        // The last spans go before the worker does.
        flushSpans?.();
        post({ t: 'ack', id: message.id });
      });
      return;
  }
});
