import {
  ADMIN_TENANT,
  type ErrorReason,
  type ExecutionExitState,
  isExecutionExitState,
  type ModuleLogger,
} from '@cyrnel/sdk';
import type { EnvironmentLease } from '../environments/environment-provider';
import { type HostMetrics, NO_HOST_METRICS } from '../metrics/host-metrics';
import { NO_TRACING, type Tracing } from '../telemetry/tracing';
import { timerDelay } from '../timer-delay';
import type { LiveProcess } from './live-process';
import type { ProcessLimits } from './process-limits';
import type { ProcessStorage } from './process-storage';
import { createRunEnd } from './run-end';
import { createEnvironmentActivity, createRunTimers } from './run-timers';
import { createRunWrites } from './run-writes';

/** Options of {@link createProcessExecution}. */
export interface ProcessExecutionOptions {
  readonly storage: ProcessStorage;
  readonly limits: ProcessLimits;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** Told of every run's end (default: nobody). */
  readonly metrics?: HostMetrics;
  /** Spans of runs and their tool calls (default: none). */
  readonly tracing?: Tracing;
  /** The egress gateway's barrier for the ends of its calls (see `RunEndOptions.endsRead`). */
  readonly endsRead?: () => Promise<void>;
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
  /**
   * The run waits at a call for approval `approvalId`: `waiting`, its deadline (here and in the
   * environment) paused until it waits for none.
   */
  startWaiting(run: LiveProcess, approvalId: string): void;
  /** Approval `approvalId` of the run was decided (or let go): `running` again once none is left. */
  stopWaiting(run: LiveProcess, approvalId: string): void;
}

/**
 * Create the execution engine shared by the API and the bindings: it drives a run through its
 * states and hands its writes (`run-writes.ts`), its end (`run-end.ts`) and its timers
 * (`run-timers.ts`) to parts of their own.
 */
export function createProcessExecution(options: ProcessExecutionOptions): ProcessExecution {
  const { storage, limits, logger, now } = options;
  const tracing = options.tracing ?? NO_TRACING;
  const live = new Map<number, LiveProcess>();
  let unfinished = 0;
  const activity = createEnvironmentActivity();
  const writes = createRunWrites(storage, logger, now);
  const { persistChange, flushDeferred } = writes;
  const ending = createRunEnd({
    storage,
    logger,
    now,
    live,
    activity,
    writes,
    metrics: options.metrics ?? NO_HOST_METRICS,
    ...(options.endsRead ? { endsRead: options.endsRead } : {}),
    onFinished: () => {
      unfinished--;
    },
  });
  const { endCalls, finish, settle } = ending;
  // The timers end runs through `terminate`, declared below.
  const timers = createRunTimers({ limits, live, activity, terminate: (...args) => terminate(...args) });
  const { armDeadline, armQueueBackstop } = timers;

  const markRunning = (run: LiveProcess): void => {
    if (run.finished || run.record.state !== 'queued') return;
    clearTimeout(run.queueTimer);
    run.queueTimer = undefined;
    activity.note(run);
    run.runningAt = performance.now();
    persistChange(run, { state: 'running', startedAt: now().toISOString() }, { deferred: true });
    run.resolveRunning(run.runningAt);
    run.trace?.running();
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
    run.runningAt = undefined;
    // Back to queued before the provisional start was written: the two cancel out in one write.
    persistChange(run, { state: 'queued', startedAt: null }, { deferred: run.deferred !== undefined });
    armQueueBackstop(run, run.timeoutMs + limits.queueStallMs, performance.now());
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

  const pauseInEnvironment = (run: LiveProcess, paused: boolean): void => {
    try {
      run.lease?.environment.pauseDeadline?.(run.record.id, paused);
    } catch (error) {
      logger.warn('process: the environment failed to pause a deadline', {
        id: run.record.id,
        error: String(error),
      });
    }
  };

  const startWaiting = (run: LiveProcess, approvalId: string): void => {
    if (run.finished || run.forced) return;
    run.approvals.add(approvalId);
    if (run.approvals.size > 1) return;
    clearTimeout(run.deadline);
    run.deadline = undefined;
    run.deadlineLeftMs = Math.max(0, run.deadlineLeftMs - (performance.now() - run.deadlineArmedAt));
    pauseInEnvironment(run, true);
    persistChange(run, { state: 'waiting', approvalId, labels: run.labelList() });
    run.emit({ type: 'state', data: { state: 'waiting', exitState: null } });
    run.startedWaiting();
  };

  const stopWaiting = (run: LiveProcess, approvalId: string): void => {
    if (!run.approvals.delete(approvalId) || run.finished || run.forced) return;
    const [next] = run.approvals;
    if (next !== undefined) {
      persistChange(run, { approvalId: next });
      return;
    }
    pauseInEnvironment(run, false);
    armDeadline(run, run.deadlineLeftMs);
    persistChange(run, { state: 'running', approvalId: null, labels: run.labelList() });
    run.emit({ type: 'state', data: { state: 'running', exitState: null } });
  };

  const start = (run: LiveProcess, lease: EnvironmentLease): void => {
    const { id, envConfig } = run.record;
    const { timeoutMs } = run;
    run.lease = lease;
    run.dispatchedAt = performance.now();
    if (tracing.enabled)
      run.trace = tracing.startRun({ record: run.record, stored: run.traceContext, claimed: run.claimed });
    live.set(id, run);
    unfinished++;
    let execution: Promise<ExecutionExitState>;
    try {
      // The tenant keeps executions of different keys out of each other's sandboxes.
      const tenant = run.record.keyId ?? ADMIN_TENANT;
      execution = lease.environment.execute({
        eid: id,
        code: run.code,
        options: { timeoutMs },
        envConfig,
        tenant,
      });
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

  return {
    live,
    unfinished: () => unfinished,
    start,
    reportState,
    terminate,
    persistChange,
    flushDeferred,
    startWaiting,
    stopWaiting,
  };
}
