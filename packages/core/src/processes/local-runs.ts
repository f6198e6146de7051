import type { ProcessEvent } from '@cyrnel/sdk/api';
import type { EnvironmentLease, EnvironmentProvider } from '../environments/environment-provider';
import { cyrnelError } from '../errors';
import { timerDelay } from '../timer-delay';
import type { LiveProcess, ProcessListener } from './live-process';
import { type KillReason, killEnd, SHUTDOWN_ERROR } from './process-errors';
import type { ProcessExecution } from './process-execution';
import type { ProcessLimits } from './process-limits';

/** Options of {@link createLocalRuns}. */
export interface LocalRunsOptions {
  readonly environments: EnvironmentProvider;
  readonly limits: ProcessLimits;
  readonly execution: ProcessExecution;
  /**
   * Called with the id of every run launched here once its end is persisted (several hosts: the
   * followers elsewhere read the end, and a freed slot takes queued work).
   */
  readonly afterSettled?: (id: number) => void;
}

/**
 * The runs of this host: the live limits (globally and per key, counting creates between their
 * reservation and their launch), launching a run with the subscribers that waited for it, kills,
 * and the shutdown's grace.
 */
export interface LocalRuns {
  /** Runs by process id, from dispatch until their end is persisted. */
  readonly live: Map<number, LiveProcess>;
  /** True once the manager closes: no new work is accepted. */
  closing(): boolean;
  /** Refuse new work from now on. */
  stopAccepting(): void;
  /** Check the live limits and lease the active environment for a new run (throws when it cannot run). */
  reserve(keyId: string | null): EnvironmentLease;
  /** Count a create holding a lease until it launches (or fails): the limits see it meanwhile. */
  hold(keyId: string | null): void;
  /** Undo {@link LocalRuns.hold}. */
  unhold(keyId: string | null): void;
  /** Runs not finished yet plus creates held: what this host holds now. */
  held(): number;
  /** Runs of `keyId` not finished yet, held creates included. */
  liveOfKey(keyId: string): number;
  /** Start `run` with the lease, handing it the subscribers that waited for its process to run. */
  launch(run: LiveProcess, lease: EnvironmentLease): void;
  /** Let `listener` follow the next run of idle process `id`; answers the unsubscribe. */
  awaitRun(id: number, listener: ProcessListener): () => void;
  /** End the subscribers waiting for a run of `id` with `event` (the process was deleted). */
  endWaiting(id: number, event: ProcessEvent): void;
  /** Kill a run of this host (recorded `canceled`, `process_killed` unless `reason` says why). */
  kill(run: LiveProcess, reason?: KillReason): void;
  /** Give the live runs `graceMs` to end, then end the rest as interrupted by the shutdown. */
  shutdown(graceMs: number): Promise<void>;
}

/** Create the runs of this host. */
export function createLocalRuns(options: LocalRunsOptions): LocalRuns {
  const { environments, limits, execution } = options;
  const { live } = execution;
  /** Subscribers of idle processes that have not run yet: they follow the next run. */
  const waiting = new Map<number, Set<ProcessListener>>();
  let reserved = 0;
  /** Creates between their reservation and their launch, per key id. */
  const reservedByKey = new Map<string, number>();
  let closing = false;

  const liveOfKey = (keyId: string): number => {
    let count = reservedByKey.get(keyId) ?? 0;
    for (const run of live.values()) if (!run.finished && run.record.keyId === keyId) count++;
    return count;
  };

  const reserve = (keyId: string | null): EnvironmentLease => {
    if (closing) throw cyrnelError('shutting_down', 'the host is shutting down');
    if (execution.unfinished() + reserved >= limits.maxLiveProcesses) {
      throw cyrnelError('too_many_processes', `too many live processes (at most ${limits.maxLiveProcesses})`);
    }
    // One key cannot take every slot; processes without a key only meet the global bound.
    if (keyId !== null && liveOfKey(keyId) >= limits.maxLiveProcessesPerKey) {
      throw cyrnelError(
        'too_many_processes',
        `too many live processes for this key (at most ${limits.maxLiveProcessesPerKey} queued, running or terminating per key)`,
      );
    }
    const lease = environments.lease();
    if (!lease) throw cyrnelError('module_unavailable', 'no environment is active');
    return lease;
  };

  const launch = (run: LiveProcess, lease: EnvironmentLease): void => {
    const id = run.record.id;
    for (const listener of waiting.get(id) ?? []) run.listeners.add(listener);
    waiting.delete(id);
    run.emit({ type: 'state', data: { state: run.record.state, exitState: null } });
    execution.start(run, lease);
    const { afterSettled } = options;
    if (afterSettled) void run.settled.then(() => afterSettled(id));
  };

  return {
    live,
    closing: () => closing,
    stopAccepting() {
      closing = true;
    },
    reserve,
    hold(keyId) {
      reserved++;
      if (keyId !== null) reservedByKey.set(keyId, (reservedByKey.get(keyId) ?? 0) + 1);
    },
    unhold(keyId) {
      reserved--;
      if (keyId === null) return;
      const left = (reservedByKey.get(keyId) ?? 1) - 1;
      if (left === 0) reservedByKey.delete(keyId);
      else reservedByKey.set(keyId, left);
    },
    held: () => execution.unfinished() + reserved,
    liveOfKey,
    launch,
    awaitRun(id, listener) {
      const set = waiting.get(id) ?? new Set();
      set.add(listener);
      waiting.set(id, set);
      return () => {
        waiting.get(id)?.delete(listener);
        live.get(id)?.listeners.delete(listener);
      };
    },
    endWaiting(id, event) {
      const followers = waiting.get(id) ?? new Set();
      waiting.delete(id);
      for (const listener of followers) {
        try {
          listener(event);
        } catch {
          // A failing subscriber must not fail the delete.
        }
      }
    },
    kill(run, reason) {
      const end = killEnd(reason);
      execution.terminate(run, 'canceled', end.error, end.errorReason);
    },
    async shutdown(graceMs) {
      const settledAll = () => Promise.all([...live.values()].map((run) => run.settled));
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timerDelay(graceMs));
      });
      await Promise.race([settledAll(), grace]);
      clearTimeout(timer);
      // A run the shutdown interrupts is `failed`, as after a crash, not `canceled`: nobody asked
      // for it to stop.
      for (const run of live.values())
        execution.terminate(run, 'failed', SHUTDOWN_ERROR, 'process_interrupted');
      await settledAll();
    },
  };
}
