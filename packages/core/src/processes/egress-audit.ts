import type { DirectCalls, ModuleLogger } from '@cyrnel/sdk';
import { type CallDecision, isErrorReason } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import type { EgressGateway } from '../gateway/egress-gateway';
import {
  type AuditEvent,
  type AuditVerdict,
  MAX_KEPT_TOOLS,
  type TracedVerdict,
} from '../gateway/gateway-protocol';
import type { CallPolicy } from './call-policy';
import type { CallOutcome, CallRecords, OpenedCall } from './call-records';
import type { LateCall, LateCalls } from './late-calls';
import type { LiveProcess } from './live-process';
import type { ProcessExecution } from './process-execution';

/** Options of {@link createEgressAudit}. */
export interface EgressAuditOptions {
  readonly execution: ProcessExecution;
  readonly records: CallRecords;
  readonly logger: ModuleLogger;
  /** The run `eid` names while it runs (undefined once it finished). */
  readonly running: (eid: number) => LiveProcess | undefined;
  /** The policies every call passes (absent: every call is allowed). */
  readonly policy?: CallPolicy;
  /** Where a kept call reported after its run ended is recorded (default: logged only). */
  readonly late?: LateCalls;
  /** The gateway's workers journal their calls: an `allow` may be kept for a run's later calls. */
  readonly journals?: boolean;
}

/** The main thread's side of the egress gateway's calls. */
export interface EgressAudit {
  /** The gateway's audit hook (`EgressGateway.audit`). */
  record(eid: number, event: AuditEvent): Promise<AuditVerdict | TracedVerdict>;
  /** Channels from sandbox processes to `egress`, granted to running executions only. */
  directCalls(egress: EgressGateway): DirectCalls;
}

/**
 * A call's outcome as the gateway reported its end: the code follows from a known reason, as on
 * the gate's path; the duration is the worker's, in whole milliseconds; the bytes were counted by
 * the worker (host code) on the JSON text it sent the sandbox.
 */
function outcomeOf(event: Extract<AuditEvent, { kind: 'end' }>): CallOutcome {
  return {
    ok: event.ok,
    errorReason: !event.ok && isErrorReason(event.errorReason) ? event.errorReason : null,
    durationMs: Math.max(0, Math.round(event.durationMs)),
    status: event.status ?? null,
    resultBytes: event.resultBytes,
  };
}

/** Late calls whose answers are still awaited, at most (past it, their starts alone are kept). */
const MAX_LATE_CALLS = 10_000;

/**
 * Audit the egress gateway's calls in the runs' call records: a start opens its run's record and
 * answers once it is stored, before the request leaves (refused when the run is not running, or
 * sent through the host's gate when the policies do not simply allow it); an end completes it.
 * A start the policies simply allowed may be kept for the run's later calls of the tool; those
 * arrive already made, and are recorded as they come (after the run ended too: `late`).
 *
 * @example
 * ```ts
 * const audit = createEgressAudit({ execution, records, logger, running, journals: egress.journals });
 * egress.audit(audit.record);
 * ```
 */
export function createEgressAudit(options: EgressAuditOptions): EgressAudit {
  const { execution, records, logger, running, policy } = options;
  // Gateway calls in flight, by run and the gateway's call id.
  const directs = new WeakMap<LiveProcess, Map<number, OpenedCall>>();
  // Who wants to know that an execution made a call through the gateway (its environment).
  const callListeners = new Map<number, (eid: number) => void>();
  // The audit hook of the egress gateway: a start opens the run's call record and resolves once
  // it is stored, before the request leaves (false when the run is not running: the call is
  // refused); an end completes it.
  const track = (run: LiveProcess, id: number, call: OpenedCall) => {
    let open = directs.get(run);
    if (!open) {
      open = new Map();
      directs.set(run, open);
    }
    open.set(id, call);
  };
  const record = async (eid: number, event: AuditEvent): Promise<AuditVerdict | TracedVerdict> => {
    const run = running(eid);
    if (!run) return late(eid, event);
    if (event.kind === 'start' && event.kept !== undefined) {
      // A kept decision of an earlier run of the process (this one has not kept it): the calls
      // stored are this run's, so it is only logged.
      if (!run.kept?.has(`${event.serviceId}.${event.toolId}`)) return late(eid, event);
      // Made under a kept decision: its request left already; recorded in this turn, written to the
      // storage with the run's next write (many kept calls in one statement).
      const call = records.open(
        run,
        event.serviceId,
        event.toolId,
        event.startedAt,
        run.kept?.get(`${event.serviceId}.${event.toolId}`) ?? null,
        event.spanId,
        // Durable in its worker's journal: written with what the run writes next.
        true,
      );
      call.trace?.shape(event.shape);
      track(run, event.id, call);
      await call.started;
      return true;
    }
    if (event.kind === 'start') {
      let decision: CallDecision | null = null;
      // The decision holds for the run's later calls of the tool (until the catalog changes, which
      // the workers hear of) unless the run's labels can turn it: an `egress` tool's can.
      // A traced run's only when the worker can draw the call span's id itself.
      let keep = options.journals === true && (!run.trace || run.trace.presetSpanIds);
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
      track(run, event.id, call);
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
    const open = directs.get(run);
    const call = open?.get(event.id);
    if (!call) return true;
    // Cut by the run's own end (its channel revoked as it ended, a crash or a kill: the worker
    // aborts the call with `process_killed`): left to the run's end, which records every call then
    // in flight as failed, without a code, as it does on the gate's path.
    if (!event.ok && event.errorReason === 'process_killed') return true;
    open?.delete(event.id);
    call.end(outcomeOf(event));
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
      call?.end(outcomeOf(event));
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
  return {
    record,
    directCalls: (egress) => ({
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
            if (!running(eid)) throw cyrnelError('process_not_running', `execution ${eid} is not running`);
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
    }),
  };
}
