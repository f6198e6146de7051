import {
  type DirectCalls,
  type EnvironmentBindings,
  type InvokeInput,
  isPlainObject,
  type ModuleLogger,
} from '@cyrnel/sdk';
import { isErrorReason } from '@cyrnel/sdk/api';
import { context } from '@opentelemetry/api';
import type { ConnectionRouter } from '../connections/connection-router';
import { answerBytes } from '../efficiency/answer-bytes';
import { claimedCpuMs } from '../efficiency/run-metrics';
import { type CyrnelError, cyrnelError, isCyrnelError } from '../errors';
import type { EgressGateway } from '../gateway/egress-gateway';
import { upstreamStatus } from '../metrics/upstream-status';
import type { Redactor } from '../secrets/redactor';
import { shownName } from '../tools/called-name';
import type { ToolGateway } from '../tools/tool-gateway';
import { createGatekeeper } from './call-gatekeeper';
import type { CallPolicy } from './call-policy';
import type { CallRecords } from './call-records';
import { createEgressAudit } from './egress-audit';
import type { LateCalls } from './late-calls';
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

  // The egress gateway's audit of the runs' calls, and the direct calls' channels over it.
  const audit = createEgressAudit({
    execution,
    records,
    logger,
    running,
    ...(policy ? { policy } : {}),
    ...(options.late ? { late: options.late } : {}),
    ...(egress ? { journals: egress.journals === true } : {}),
  });
  egress?.audit(audit.record);
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
    egress && options.directCalls !== false ? audit.directCalls(egress) : undefined;

  return {
    ...(directCalls ? { directCalls } : {}),
    async invokeTool(eid, called) {
      const run = running(eid);
      if (!run) throw cyrnelError('process_not_running', `execution ${eid} is not running`);
      const input = boundedNames(called);
      const serviceId = String(input?.serviceId);
      const toolId = String(input?.toolId);
      const decision = policy ? await gatekeep(run, serviceId, toolId, input?.parameters) : null;
      // The request leaves only once its start is durable, so a crash in flight keeps it listed:
      // in the host's journal (its row then goes with the run's next write), else in the store.
      const startedMs = options.now().getTime();
      const journaled = egress?.journalHostCall(eid, serviceId, toolId, startedMs);
      const call = records.open(
        run,
        serviceId,
        toolId,
        startedMs,
        decision,
        undefined,
        journaled !== undefined,
      );
      call.trace?.parameters(input?.parameters);
      if (journaled) journaled(call.started);
      else await call.started;
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

/**
 * The call with its service and tool names as records keep them ({@link shownName}): a name longer
 * than any id fails as any unknown name does (`service_not_found`, `tool_not_found`), but its
 * record, its journal line and its error keep only its first 128 characters and `…`. A program
 * calling megabyte names in a loop then writes rows of a few hundred bytes.
 */
function boundedNames(input: InvokeInput): InvokeInput {
  if (!isPlainObject(input)) return input;
  const serviceId = shownName(input.serviceId);
  const toolId = shownName(input.toolId);
  return serviceId === input.serviceId && toolId === input.toolId
    ? input
    : ({ ...input, serviceId, toolId } as InvokeInput);
}
