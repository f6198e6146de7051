import type { DirectCalls, EnvironmentBindings, ModuleLogger } from '@cyrnel/sdk';
import { type CallDecision, isErrorReason } from '@cyrnel/sdk/api';
import { context } from '@opentelemetry/api';
import type { ConnectionRouter } from '../connections/connection-router';
import { answerBytes } from '../efficiency/answer-bytes';
import { claimedCpuMs } from '../efficiency/run-metrics';
import { type CyrnelError, cyrnelError, isCyrnelError } from '../errors';
import type { EgressGateway } from '../gateway/egress-gateway';
import {
  type AuditEvent,
  type AuditVerdict,
  MAX_KEPT_TOOLS,
  type TracedVerdict,
} from '../gateway/gateway-protocol';
import { upstreamStatus } from '../metrics/upstream-status';
import type { Redactor } from '../secrets/redactor';
import type { ToolGateway } from '../tools/tool-gateway';
import { createGatekeeper } from './call-gatekeeper';
import type { CallPolicy } from './call-policy';
import type { CallRecords, OpenedCall } from './call-records';
import type { LateCall, LateCalls } from './late-calls';
import type { LiveProcess } from './live-process';
import type { ProcessExecution } from './process-execution';
import type { RunCheckpoints } from './run-checkpoints';

/** Options of {@link createProcessBindings}. */
export interface ProcessBindingsOptions {
  readonly execution: ProcessExecution;
  readonly tools: ToolGateway;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** Where tool calls are recorded (at their start, durably, and at their end). */
  readonly records: CallRecords;
  /** Where a kept call the egress gateway reports after its run ended is recorded (default: logged only). */
  readonly late?: LateCalls;
  /** What running processes write reaches the storage periodically (a crash keeps it). */
  readonly checkpoints: RunCheckpoints;
  /**
   * The egress gateway, whose calls are audited here. With `directCalls`, environments get
   * `bindings.directCalls`: channels from their sandbox processes to it.
   */
  readonly egress?: EgressGateway;
  /** Offer `bindings.directCalls` (default true when `egress` is given). */
  readonly directCalls?: boolean;
  /** Removes the secrets the host holds from what a run records and what its code receives. */
  readonly redactor?: Redactor;
  /** The policies every call passes (absent: every call is allowed). */
  readonly policy?: CallPolicy;
  /** Which connection each call uses (absent: every call uses its service's own secrets). */
  readonly connections?: Pick<ConnectionRouter, 'route'>;
}

/** Late calls whose answers are still awaited, at most (past it, their starts alone are kept). */
const MAX_LATE_CALLS = 10_000;

/** Longest `setError` message kept; the rest is cut. */
const MAX_ERROR_LENGTH = 10_000;

/**
 * Discovery calls one run may make: each one ranks the catalog on the host's thread, so
 * a program must not be able to turn a `Promise.all` of thousands into a stalled server.
 */
export const DISCOVERY_BUDGET = 1000;

/** A run's discovery calls: how many so far, and the tail of the one-at-a-time chain. */
interface DiscoveryState {
  count: number;
  tail: Promise<unknown>;
  /** The one refusal past the budget, built once: thousands arrive in one batch from the sandbox. */
  refused?: Promise<never>;
}

/**
 * The host side of the environment bindings: every call is routed by `eid` to the
 * live run it belongs to. Calls for a run that already ended are ignored (an abandoned
 * execution may keep talking after a kill).
 */
export function createProcessBindings(options: ProcessBindingsOptions): EnvironmentBindings {
  const { execution, tools, logger, records, checkpoints, policy, egress } = options;
  const redact = (text: string) => options.redactor?.redact(text) ?? text;
  /** An error as the sandbox receives it: no secret in its message or details. */
  const cleaned = (error: CyrnelError): CyrnelError => {
    const redactor = options.redactor;
    if (!redactor) return error;
    const message = redactor.redact(error.message);
    const details = error.details === undefined ? undefined : redactor.redactValue(error.details);
    if (message === error.message && details === error.details) return error;
    return cyrnelError(error.reason, message, details === undefined ? {} : { details });
  };

  const running = (eid: number): LiveProcess | undefined => {
    const run = execution.live.get(eid);
    return run && !run.finished ? run : undefined;
  };

  const discoveries = new WeakMap<LiveProcess, DiscoveryState>();
  // One discovery call of a run at a time, each after the event loop had a turn (so HTTP requests
  // and other runs interleave), and at most DISCOVERY_BUDGET per run.
  const discover = <T>(eid: number, task: () => Promise<T>): Promise<T> => {
    const run = running(eid);
    if (!run) return Promise.reject(cyrnelError('process_not_running', `execution ${eid} is not running`));
    let state = discoveries.get(run);
    if (!state) {
      state = { count: 0, tail: Promise.resolve() };
      discoveries.set(run, state);
    }
    if (++state.count > DISCOVERY_BUDGET) {
      if (!state.refused) {
        state.refused = Promise.reject(
          cyrnelError(
            'too_many_calls',
            `a process may make at most ${DISCOVERY_BUDGET} discovery calls (cyrnel.discover.*)`,
          ),
        );
        state.refused.catch(() => undefined);
      }
      return state.refused;
    }
    const result = state.tail.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(task);
    state.tail = result.catch(() => undefined);
    return result;
  };

  // Gateway calls in flight, by run and the gateway's call id.
  const directs = new WeakMap<LiveProcess, Map<number, OpenedCall>>();
  // Who wants to know that an execution made a call through the gateway (its environment).
  const callListeners = new Map<number, (eid: number) => void>();
  // The audit hook of the egress gateway: a start opens the run's call record and resolves once
  // it is stored, before the request leaves (false when the run is not running: the call is
  // refused); an end completes it.
  const record = async (eid: number, event: AuditEvent): Promise<AuditVerdict | TracedVerdict> => {
    const run = running(eid);
    if (!run) return late(eid, event);
    let open = directs.get(run);
    if (event.kind === 'start' && event.kept !== undefined) {
      // A kept decision of an earlier run of the process (this one has not kept it): the calls
      // stored are this run's, so it is only logged.
      if (!run.kept?.has(`${event.serviceId}.${event.toolId}`)) return late(eid, event);
      // Made under a kept decision: its request left already; recorded in this turn with it.
      const call = records.open(
        run,
        event.serviceId,
        event.toolId,
        event.startedAt,
        run.kept?.get(`${event.serviceId}.${event.toolId}`) ?? null,
        event.spanId,
      );
      call.trace?.shape(event.shape);
      if (!open) {
        open = new Map();
        directs.set(run, open);
      }
      open.set(event.id, call);
      await call.started;
      return true;
    }
    if (event.kind === 'start') {
      let decision: CallDecision | null = null;
      // The decision holds for the run's later calls of the tool (until the catalog changes, which
      // the workers hear of) unless the run's labels can turn it: an `egress` tool's can.
      // A traced run's only when the worker can draw the call span's id itself.
      let keep = egress?.journals === true && (!run.trace || run.trace.presetSpanIds);
      if (policy) {
        const verdict =
          policy.decideNow(run, event.serviceId, event.toolId) ??
          (await policy.decide(run, event.serviceId, event.toolId));
        // Anything but `allow` is decided by the gate, on the host's path (a person, or a refusal).
        if (verdict.policy !== 'allow') return 'host';
        if (run.finished) return false;
        policy.made(run, verdict);
        decision = policy.decision(verdict, 'allowed');
        if (verdict.labels.includes('egress')) keep = false;
      }
      const call = records.open(run, event.serviceId, event.toolId, event.startedAt, decision);
      if (!open) {
        open = new Map();
        directs.set(run, open);
      }
      open.set(event.id, call);
      callListeners.get(eid)?.(eid);
      call.trace?.shape(event.shape);
      await call.started;
      // The worker continues the call's span: its adapter's request becomes a child of it (and a
      // kept call's span is of the same trace, with an id the worker draws).
      const carrier = call.trace?.carrier;
      if (keep && !run.finished && (run.kept?.size ?? 0) < MAX_KEPT_TOOLS) {
        run.kept ??= new Map();
        run.kept.set(`${event.serviceId}.${event.toolId}`, decision);
        return carrier ? { ok: true, keep: true, trace: carrier } : { ok: true, keep: true };
      }
      return carrier ? { ok: true, trace: carrier } : true;
    }
    const call = open?.get(event.id);
    if (!call) return true;
    // Cut by the run's own end (its channel revoked as it ended, a crash or a kill: the worker
    // aborts the call with `process_killed`): left to the run's end, which records every call then
    // in flight as failed, without a code, as it does on the gate's path.
    if (!event.ok && event.errorReason === 'process_killed') return true;
    open?.delete(event.id);
    // The code follows from a known reason, as on the gate's path.
    const reason = !event.ok && isErrorReason(event.errorReason) ? event.errorReason : null;
    call.end({
      ok: event.ok,
      errorReason: reason,
      durationMs: Math.max(0, Math.round(event.durationMs)),
      status: event.status ?? null,
      // Counted by the gateway's worker (host code) on the JSON text it sent the sandbox.
      resultBytes: event.resultBytes,
    });
    return true;
  };
  // Kept calls reported after their run ended, by the gateway's call id (their ends may follow).
  const lateCalls = new Map<number, LateCall>();
  // A kept call's request left before its report arrived: a start the run's end did not wait for
  // (its worker stalled past the run's `sync`) is recorded with the process's stored calls. Any
  // other start of an ended run is refused; an end of a call not recorded late is ignored.
  const late = async (eid: number, event: AuditEvent): Promise<AuditVerdict> => {
    if (event.kind === 'end') {
      const call = lateCalls.get(event.id);
      lateCalls.delete(event.id);
      call?.end({
        ok: event.ok,
        errorReason: !event.ok && isErrorReason(event.errorReason) ? event.errorReason : null,
        durationMs: event.durationMs,
        resultBytes: event.resultBytes,
      });
      return true;
    }
    if (event.kept === undefined) return false;
    const ended = execution.live.get(eid);
    const key = `${event.serviceId}.${event.toolId}`;
    const lateStart = {
      processId: eid,
      serviceId: event.serviceId,
      toolId: event.toolId,
      startedMs: event.startedAt,
      decision: ended?.kept?.get(key) ?? null,
    };
    if (!options.late || (ended && !ended.finished)) {
      // No storage for it, or the process runs again (its calls are the new run's).
      logger.warn('process: a tool call reported after its run ended was not recorded', {
        id: eid,
        serviceId: event.serviceId,
        toolId: event.toolId,
      });
      return true;
    }
    const call = options.late.open(ended ? { ...lateStart, after: ended.settled } : lateStart);
    if (lateCalls.size < MAX_LATE_CALLS) lateCalls.set(event.id, call);
    await call.started;
    return true;
  };
  egress?.audit(record);
  // Which connection a sandbox's direct call uses: its process's principal decides, the code only names one.
  const { connections } = options;
  if (connections)
    egress?.route(async (eid, serviceId, requested) => {
      const run = running(eid);
      if (!run) throw cyrnelError('process_not_running', `execution ${eid} is not running`);
      return connections.route(run.record, serviceId, requested);
    });

  const gatekeep = createGatekeeper({ records, execution, policy, redactor: options.redactor });
  const directCalls: DirectCalls | undefined =
    egress && options.directCalls !== false
      ? {
          open(channelOptions) {
            const channel = egress.open();
            const granted = new Set<number>();
            const forget = (eid: number) => {
              if (granted.delete(eid)) callListeners.delete(eid);
            };
            return {
              endpoints: channel.endpoints,
              token: channel.token,
              // Only a running execution is granted (the gateway refuses calls for any other).
              grant: async (eid) => {
                if (!running(eid))
                  throw cyrnelError('process_not_running', `execution ${eid} is not running`);
                const onCall = channelOptions?.onCall;
                if (onCall) {
                  granted.add(eid);
                  callListeners.set(eid, onCall);
                }
                await channel.grant(eid);
              },
              revoke: (eid) => {
                forget(eid);
                channel.revoke(eid);
              },
              close: () => {
                for (const eid of [...granted]) forget(eid);
                channel.close();
              },
            };
          },
        }
      : undefined;

  return {
    ...(directCalls ? { directCalls } : {}),
    async invokeTool(eid, input) {
      const run = running(eid);
      if (!run) throw cyrnelError('process_not_running', `execution ${eid} is not running`);
      const serviceId = String(input?.serviceId);
      const toolId = String(input?.toolId);
      const decision = policy ? await gatekeep(run, serviceId, toolId, input?.parameters) : null;
      const call = records.open(run, serviceId, toolId, undefined, decision);
      call.trace?.parameters(input?.parameters);
      // The request leaves only once its start is stored: a crash in flight keeps it listed.
      await call.started;
      try {
        const signal =
          input?.signal instanceof AbortSignal
            ? AbortSignal.any([input.signal, run.ending.signal])
            : run.ending.signal;
        // The principal is the process's, never the sandbox's: it only names a connection.
        const instanceId = await options.connections?.route(run.record, serviceId, input?.connection);
        const invoke = () => tools.invoke({ ...input, signal }, instanceId);
        // Traced: what the adapter does (its requests upstream) is a child of the call's span.
        const result = await (call.trace ? context.with(call.trace.context, invoke) : invoke());
        call.end({ ok: true, status: upstreamStatus(result), resultBytes: answerBytes(result) });
        return result;
      } catch (error) {
        const typed = isCyrnelError(error)
          ? error
          : cyrnelError('upstream_failed', error instanceof Error ? error.message : 'the tool call failed', {
              cause: error,
            });
        call.end({ ok: false, errorCode: typed.code, errorReason: typed.reason });
        throw cleaned(typed);
      }
    },
    discoverServices: (eid, query) => discover(eid, () => tools.discoverServices(query ?? {})),
    discoverTools: (eid, query) => discover(eid, () => tools.discoverTools(query ?? {})),
    describeTool: (eid, serviceId, toolId) => discover(eid, () => tools.describeTool(serviceId, toolId)),
    discoverTypes: (eid, selection) =>
      discover(eid, () => {
        if (!tools.discoverTypes)
          throw cyrnelError('module_unavailable', 'type declarations are not available');
        return tools.discoverTypes(selection ?? {});
      }),
    setState(eid, state) {
      const run = running(eid);
      if (!run) return;
      if (state === 'queued' || state === 'running') execution.reportState(run, state);
      else logger.warn('process: unknown state reported', { id: eid, state: String(state) });
    },
    emitStdout(eid, chunk) {
      const run = running(eid);
      const text = run?.stdout.write(typeof chunk === 'string' ? redact(chunk) : chunk);
      if (!run || !text) return;
      run.emit({ type: 'stdout', data: { text } });
      checkpoints.note(run, 'stdout', Buffer.byteLength(text));
    },
    emitStderr(eid, chunk) {
      const run = running(eid);
      const text = run?.stderr.write(typeof chunk === 'string' ? redact(chunk) : chunk);
      if (!run || !text) return;
      run.emit({ type: 'stderr', data: { text } });
      checkpoints.note(run, 'stderr', Buffer.byteLength(text));
    },
    emitOutput(eid, patch) {
      const run = running(eid);
      if (!run) return;
      const applied = run.output.merge(options.redactor ? options.redactor.redactValue(patch) : patch);
      run.emit({ type: 'output', data: { patch: applied } });
      checkpoints.note(run, 'output', 0);
    },
    reportUsage(eid, usage) {
      const run = running(eid);
      const cpuMs = claimedCpuMs(usage);
      if (run && cpuMs !== undefined) run.cpuClaimMs = cpuMs;
    },
    setError(eid, message, reason) {
      const run = running(eid);
      if (!run) return;
      run.error = redact(String(message).slice(0, MAX_ERROR_LENGTH));
      run.errorReason = isErrorReason(reason) ? reason : null;
    },
  };
}
