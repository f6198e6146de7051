import type { DirectCalls, EnvironmentBindings, ModuleLogger } from '@cyrnel/sdk';
import { ERROR_REASONS, isErrorReason, type ToolCallRecord } from '@cyrnel/sdk/api';
import { cyrnelError, isCyrnelError } from '../errors';
import type { EgressGateway } from '../gateway/egress-gateway';
import type { AuditEvent } from '../gateway/gateway-protocol';
import type { ToolGateway } from '../tools/tool-gateway';
import type { LiveProcess } from './live-process';
import type { ProcessExecution } from './process-execution';

/** Options of {@link createProcessBindings}. */
export interface ProcessBindingsOptions {
  readonly execution: ProcessExecution;
  readonly tools: ToolGateway;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /**
   * The egress gateway, whose calls are audited here. With `directCalls`, environments get
   * `bindings.directCalls`: channels from their sandbox processes to it.
   */
  readonly egress?: EgressGateway;
  /** Offer `bindings.directCalls` (default true when `egress` is given). */
  readonly directCalls?: boolean;
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
  const { execution, tools, logger, now } = options;

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

  // Recorded at the call, completed at the answer: a call still in flight when the run ends is
  // kept (ok false, no error code, duration up to the end) for the audit. Gated and direct alike.
  const openCall = (run: LiveProcess, serviceId: string, toolId: string, startedMs: number) => {
    const call: ToolCallRecord = {
      serviceId,
      toolId,
      startedAt: new Date(startedMs).toISOString(),
      durationMs: 0,
      ok: false,
      errorCode: null,
      errorReason: null,
    };
    run.calls.push(call);
    run.pendingCalls.set(call, startedMs);
    return call;
  };

  // Gateway calls in flight, by run and the gateway's call id.
  const directs = new WeakMap<LiveProcess, Map<number, ToolCallRecord>>();
  // The audit hook of the egress gateway: a start opens the run's call record (false when the run
  // is not running: the call is refused), an end completes it.
  const record = (eid: number, event: AuditEvent): boolean => {
    const run = running(eid);
    if (!run) return false;
    let open = directs.get(run);
    if (event.kind === 'start') {
      const call = openCall(run, event.serviceId, event.toolId, event.startedAt);
      if (!open) {
        open = new Map();
        directs.set(run, open);
      }
      open.set(event.id, call);
      return true;
    }
    const call = open?.get(event.id);
    if (!call) return true;
    open?.delete(event.id);
    run.pendingCalls.delete(call);
    call.ok = event.ok;
    // The code follows from a known reason, as on the gate's path.
    const reason = !event.ok && isErrorReason(event.errorReason) ? event.errorReason : null;
    call.errorReason = reason;
    call.errorCode = reason === null ? (event.ok ? null : 'upstream_error') : ERROR_REASONS[reason].code;
    call.durationMs = Math.max(0, Math.round(event.durationMs));
    return true;
  };
  const { egress } = options;
  egress?.audit(record);
  const directCalls: DirectCalls | undefined =
    egress && options.directCalls !== false
      ? {
          open() {
            const channel = egress.open();
            return {
              endpoints: channel.endpoints,
              token: channel.token,
              // Only a running execution is granted (the gateway refuses calls for any other).
              grant: async (eid) => {
                if (!running(eid))
                  throw cyrnelError('process_not_running', `execution ${eid} is not running`);
                await channel.grant(eid);
              },
              revoke: (eid) => channel.revoke(eid),
              close: () => channel.close(),
            };
          },
        }
      : undefined;

  return {
    ...(directCalls ? { directCalls } : {}),
    async invokeTool(eid, input) {
      const run = running(eid);
      if (!run) throw cyrnelError('process_not_running', `execution ${eid} is not running`);
      const started = now();
      const call = openCall(run, String(input?.serviceId), String(input?.toolId), started.getTime());
      try {
        const signal =
          input?.signal instanceof AbortSignal
            ? AbortSignal.any([input.signal, run.ending.signal])
            : run.ending.signal;
        const result = await tools.invoke({ ...input, signal });
        call.ok = true;
        return result;
      } catch (error) {
        const typed = isCyrnelError(error)
          ? error
          : cyrnelError('upstream_failed', error instanceof Error ? error.message : 'the tool call failed', {
              cause: error,
            });
        call.errorCode = typed.code;
        call.errorReason = typed.reason;
        throw typed;
      } finally {
        call.durationMs = now().getTime() - started.getTime();
        run.pendingCalls.delete(call);
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
      const text = run?.stdout.write(chunk);
      if (run && text) run.emit({ type: 'stdout', data: { text } });
    },
    emitStderr(eid, chunk) {
      const run = running(eid);
      const text = run?.stderr.write(chunk);
      if (run && text) run.emit({ type: 'stderr', data: { text } });
    },
    emitOutput(eid, patch) {
      const run = running(eid);
      if (!run) return;
      const applied = run.output.merge(patch);
      run.emit({ type: 'output', data: { patch: applied } });
    },
    setError(eid, message) {
      const run = running(eid);
      if (run) run.error = String(message).slice(0, MAX_ERROR_LENGTH);
    },
  };
}
