import {
  type ErrorReason,
  type ExecutionExitState,
  isExecutionExitState,
  type ModuleLogger,
} from '@cyrnel/sdk';
import type { EnvironmentLease } from '../environments/environment-provider';
import { cyrnelError } from '../errors';
import { timerDelay } from '../timer-delay';
import type { LiveProcess } from './live-process';
import type { ProcessLimits } from './process-limits';
import type { ProcessStorage } from './process-storage';

/**
 * How long the `running` update of a run is held back: a run that ends sooner is written once,
 * at its end (a trivial process takes about a millisecond). Reads never see the difference: the
 * run in memory answers them, and `list` writes what is held back before it reads the store.
 */
export const RUNNING_WRITE_DELAY_MS = 50;

/** Options of {@link createProcessExecution}. */
export interface ProcessExecutionOptions {
  readonly storage: ProcessStorage;
  readonly limits: ProcessLimits;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
}

/** Drives runs through the environment: dispatch, states, the deadline, kills and the end. */
export interface ProcessExecution {
  /** Runs by process id, from dispatch until their end is persisted. */
  readonly live: Map<number, LiveProcess>;
  /** Runs not finished yet (what `maxLiveProcesses` counts). */
  unfinished(): number;
  /** Hand a run to the leased environment. */
  start(run: LiveProcess, lease: EnvironmentLease): void;
  /** What the environment reports through `setState`; the deadline counts from `running`. */
  reportState(run: LiveProcess, state: 'queued' | 'running'): void;
  /** End a run by force (kill, deadline, shutdown): `terminating`, environment kill, then idle. */
  terminate(run: LiveProcess, exitState: ExecutionExitState, error: string, errorReason: ErrorReason): void;
  /** Persist a change of the record of a run. */
  persistChange(
    run: LiveProcess,
    change: Partial<LiveProcess['record']>,
    options?: { readonly deferred?: boolean },
  ): void;
  /** Write a run's held-back change now (before reading the store alone). */
  flushDeferred(run: LiveProcess): void;
}

/** Create the execution engine shared by the API and the bindings. */
export function createProcessExecution(options: ProcessExecutionOptions): ProcessExecution {
  const { storage, limits, logger, now } = options;
  const live = new Map<number, LiveProcess>();
  /** When each environment last started or ended a run (`performance.now()`), for the queue backstop. */
  const lastActivity = new WeakMap<object, number>();
  let unfinished = 0;

  const noteActivity = (run: LiveProcess): void => {
    const environment = run.lease?.environment;
    if (environment) lastActivity.set(environment, performance.now());
  };

  const onWriteError = (id: number) => (error: unknown) => {
    logger.error('process: storage write failed', { id, error: String(error) });
  };

  /** Write the change held back by `persistChange(..., { deferred: true })`, if any. */
  const flushDeferred = (run: LiveProcess): void => {
    const change = run.deferred;
    if (!change) return;
    run.deferred = undefined;
    clearTimeout(run.deferredTimer);
    run.persist(() => storage.update(run.record.id, change), onWriteError(run.record.id));
  };

  const persistChange = (
    run: LiveProcess,
    change: Partial<LiveProcess['record']>,
    options: { readonly deferred?: boolean } = {},
  ): void => {
    const updatedAt = now().toISOString();
    run.record = { ...run.record, ...change, updatedAt };
    const stored = { ...change, updatedAt };
    if (options.deferred) {
      // A run that ends within RUNNING_WRITE_DELAY_MS is written once, at its end (issue 21).
      run.deferred = { ...run.deferred, ...stored };
      clearTimeout(run.deferredTimer);
      run.deferredTimer = setTimeout(() => flushDeferred(run), RUNNING_WRITE_DELAY_MS);
    } else {
      flushDeferred(run);
      run.persist(() => storage.update(run.record.id, stored), onWriteError(run.record.id));
    }
    if (change.state !== undefined) {
      run.emit({ type: 'state', data: { state: run.record.state, exitState: run.record.exitState } });
    }
  };

  // Tool calls still in flight are cancelled: their adapters abort the outbound requests.
  const endCalls = (run: LiveProcess, exitState: ExecutionExitState): void => {
    if (!run.ending.signal.aborted)
      run.ending.abort(
        cyrnelError(
          'process_not_running',
          `process ${run.record.id} ended (${exitState}) before the call finished`,
        ),
      );
  };

  const finish = (
    run: LiveProcess,
    exitState: ExecutionExitState,
    error: string | null,
    errorReason: ErrorReason | null,
  ): void => {
    if (run.finished) return;
    run.finished = true;
    unfinished--;
    endCalls(run, exitState);
    noteActivity(run);
    for (const timer of run.timers) clearTimeout(timer);
    run.timers = [];
    clearTimeout(run.deadline);
    run.deadline = undefined;
    clearTimeout(run.queueTimer);
    run.queueTimer = undefined;
    const out = run.stdout.end();
    if (out !== '') run.emit({ type: 'stdout', data: { text: out } });
    const err = run.stderr.end();
    if (err !== '') run.emit({ type: 'stderr', data: { text: err } });
    try {
      run.lease?.release();
    } catch (error) {
      logger.warn('process: lease release failed', { id: run.record.id, error: String(error) });
    }
    run.lease = undefined;
    const at = now().toISOString();
    // What was held back (the start of a short run) is written with the end, in one statement.
    const held = run.deferred;
    run.deferred = undefined;
    clearTimeout(run.deferredTimer);
    const change = {
      ...held,
      state: 'idle',
      exitState,
      error,
      errorReason,
      completedAt: at,
      updatedAt: at,
    } as const;
    run.record = { ...run.record, ...change };
    run.emit({ type: 'state', data: { state: 'idle', exitState } });
    run.emit({ type: 'exit', data: { exitState, error, errorReason } });
    const id = run.record.id;
    const results = { output: run.output.value(), stdout: run.stdout.text(), stderr: run.stderr.text() };
    const end = Date.parse(at);
    for (const [call, start] of run.pendingCalls) call.durationMs = end - start;
    // A snapshot: a call answering after the end must not change what was persisted.
    const calls = run.calls.map((call) => ({ ...call }));
    // `wait` answers from memory now; the rows follow (reads of the id wait for them).
    run.resolveEnded();
    run
      .persist(() => storage.finish(id, change, results, calls), onWriteError(id))
      .then(() => {
        if (live.get(id) === run) live.delete(id);
        run.resolveSettled();
      });
  };

  const errorFor = (run: LiveProcess, exitState: ExecutionExitState): string | null => {
    if (exitState === 'success') return null;
    if (run.error !== null) return run.error;
    if (exitState === 'timeout') return `timed out after ${run.timeoutMs} ms`;
    return exitState === 'canceled' ? 'canceled' : 'the process failed';
  };

  // An end the environment reports: only a deadline or a cancel has a reason; a failure is the code's.
  const reasonFor = (exitState: ExecutionExitState): ErrorReason | null =>
    exitState === 'timeout' ? 'process_timeout' : exitState === 'canceled' ? 'process_killed' : null;

  const settle = (run: LiveProcess, exitState: ExecutionExitState): void => {
    const { forced } = run;
    if (forced) finish(run, forced.exitState, forced.error, forced.errorReason);
    else finish(run, exitState, errorFor(run, exitState), reasonFor(exitState));
  };

  // The backstop of SPEC §9: whatever the environment does, the run ends at its deadline.
  const armDeadline = (run: LiveProcess): void => {
    const { timeoutMs } = run;
    clearTimeout(run.deadline);
    run.deadline = setTimeout(
      () => terminate(run, 'timeout', `timed out after ${timeoutMs} ms`, 'process_timeout'),
      timerDelay(timeoutMs),
    );
  };

  const markRunning = (run: LiveProcess): void => {
    if (run.finished || run.record.state !== 'queued') return;
    clearTimeout(run.queueTimer);
    run.queueTimer = undefined;
    noteActivity(run);
    persistChange(run, { state: 'running', startedAt: now().toISOString() }, { deferred: true });
    run.resolveRunning(performance.now());
    armDeadline(run);
  };

  /**
   * What the environment reports (`EnvironmentBindings.setState`). A run dispatched without a
   * report counts as running from dispatch, provisionally: if the environment then reports
   * `queued` (its own queue, reached after an `await`), the run is queued again and its deadline
   * waits; if it reports `running`, the deadline restarts from then. The deadline therefore counts
   * from the environment's `running`, or from dispatch only when it never reports a state.
   */
  const reportState = (run: LiveProcess, state: 'queued' | 'running'): void => {
    if (run.finished || run.forced) return;
    const provisional = run.provisional;
    run.provisional = false;
    if (state === 'running') {
      if (provisional) armDeadline(run);
      else markRunning(run);
      return;
    }
    run.reportedQueued = true;
    if (!provisional || run.record.state !== 'running') return;
    clearTimeout(run.deadline);
    run.deadline = undefined;
    // Back to queued before the provisional start was written: the two cancel out in one write.
    persistChange(run, { state: 'queued', startedAt: null }, { deferred: run.deferred !== undefined });
    armQueueBackstop(run, run.timeoutMs + limits.queueStallMs, performance.now());
  };

  /** True while another run of `run`'s environment is running or being killed: the queue moves. */
  const environmentBusy = (run: LiveProcess): boolean => {
    const environment = run.lease?.environment;
    for (const other of live.values()) {
      if (other === run || other.finished || other.lease?.environment !== environment) continue;
      if (other.record.state === 'running' || other.record.state === 'terminating') return true;
    }
    return false;
  };

  /**
   * The deadline of a run the environment keeps `queued` (it reported `queued` and never
   * `running`): past its own timeout plus `queueStallMs`, it ends with `timeout` as soon as its
   * environment has run nothing for `queueStallMs`. Time waiting behind busy slots never counts.
   */
  const armQueueBackstop = (run: LiveProcess, delayMs: number, queuedAt: number): void => {
    run.queueTimer = setTimeout(() => {
      run.queueTimer = undefined;
      if (run.finished || run.record.state !== 'queued') return;
      const environment = run.lease?.environment;
      const quietMs = performance.now() - ((environment && lastActivity.get(environment)) ?? queuedAt);
      // Floored: with a tiny `queueStallMs`, a long busy spell must not become a spinning timer.
      if (environmentBusy(run)) return armQueueBackstop(run, Math.max(limits.queueStallMs, 50), queuedAt);
      if (quietMs < limits.queueStallMs)
        return armQueueBackstop(run, limits.queueStallMs - quietMs, queuedAt);
      const waitedMs = Math.round(performance.now() - queuedAt);
      terminate(
        run,
        'timeout',
        `timed out after ${waitedMs} ms queued: the environment ran nothing for ${limits.queueStallMs} ms`,
        'process_timeout',
      );
    }, timerDelay(delayMs));
  };

  const killInEnvironment = (run: LiveProcess): void => {
    const environment = run.lease?.environment;
    if (!environment) return;
    const id = run.record.id;
    try {
      environment.kill(id).catch((error: unknown) => {
        logger.warn('process: environment kill failed', { id, error: String(error) });
      });
    } catch (error) {
      logger.warn('process: environment kill failed', { id, error: String(error) });
    }
  };

  const terminate = (
    run: LiveProcess,
    exitState: ExecutionExitState,
    error: string,
    errorReason: ErrorReason,
  ): void => {
    if (run.finished || run.forced) return;
    run.forced = { exitState, error, errorReason };
    endCalls(run, exitState);
    killInEnvironment(run);
    if (run.record.state === 'queued') {
      finish(run, exitState, error, errorReason);
      return;
    }
    persistChange(run, { state: 'terminating' });
    // An environment that never returns from execute() is abandoned after the grace period.
    run.timers.push(
      setTimeout(() => finish(run, exitState, error, errorReason), timerDelay(limits.killGraceMs)),
    );
  };

  const start = (run: LiveProcess, lease: EnvironmentLease): void => {
    const { id, envConfig } = run.record;
    const { timeoutMs } = run;
    run.lease = lease;
    live.set(id, run);
    unfinished++;
    let execution: Promise<ExecutionExitState>;
    try {
      execution = lease.environment.execute({ eid: id, code: run.code, options: { timeoutMs }, envConfig });
    } catch (error) {
      execution = Promise.reject(error);
    }
    // An environment that does not report `queued` while dispatching is running now
    // (provisionally: see `reportState`).
    if (!run.reportedQueued) {
      markRunning(run);
      run.provisional = true;
    } else if (run.record.state === 'queued')
      armQueueBackstop(run, timeoutMs + limits.queueStallMs, performance.now());
    execution.then(
      (exitState) => {
        if (isExecutionExitState(exitState)) {
          settle(run, exitState);
          return;
        }
        run.error ??= `the environment answered an unknown exit state: ${String(exitState)}`;
        settle(run, 'failed');
      },
      (error: unknown) => {
        run.error ??= error instanceof Error ? error.message : String(error);
        settle(run, 'failed');
      },
    );
  };

  return { live, unfinished: () => unfinished, start, reportState, terminate, persistChange, flushDeferred };
}
