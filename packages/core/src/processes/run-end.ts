import type { ErrorReason, ExecutionExitState, ModuleLogger } from '@cyrnel/sdk';
import { atMost } from '../at-most';
import { measureRun } from '../efficiency/run-metrics';
import { cyrnelError } from '../errors';
import type { HostMetrics } from '../metrics/host-metrics';
import type { LiveProcess } from './live-process';
import type { ProcessChange, ProcessStorage } from './process-storage';
import type { EnvironmentActivity } from './run-timers';
import type { RunWrites } from './run-writes';

/** Options of {@link createRunEnd}. */
export interface RunEndOptions {
  readonly storage: ProcessStorage;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** Runs by process id: an ended run leaves once its end is persisted. */
  readonly live: Map<number, LiveProcess>;
  readonly activity: EnvironmentActivity;
  readonly writes: Pick<RunWrites, 'onWriteError'>;
  /** A run finished (the count of unfinished runs drops). */
  readonly onFinished: () => void;
  /** Told of every run's end. */
  readonly metrics: HostMetrics;
  /**
   * Resolves once the egress gateway's call ends sent so far were read: its workers do not wait for
   * an end to be acknowledged, so a run the environment ended with calls still open waits for
   * this (at most {@link ENDS_WAIT_MS}) before it is settled, and its calls keep their outcome.
   */
  readonly endsRead?: () => Promise<void>;
}

/** Longest a run's end waits for the ends of its calls still in the egress gateway's messages. */
const ENDS_WAIT_MS = 2_000;

/** The end of a run: its calls in flight cancelled, its timers and lease released, its results written once. */
export interface RunEnd {
  /** Cancel the tool calls still in flight: their adapters abort the outbound requests. */
  endCalls(run: LiveProcess, exitState: ExecutionExitState): void;
  /** End the run as given (once): `wait` answers from memory at once, the rows follow. */
  finish(
    run: LiveProcess,
    exitState: ExecutionExitState,
    error: string | null,
    errorReason: ErrorReason | null,
  ): void;
  /** End the run as the environment reported it, unless a kill or the deadline decided first. */
  settle(run: LiveProcess, exitState: ExecutionExitState): void;
}

/** Create the end of runs. */
export function createRunEnd(options: RunEndOptions): RunEnd {
  const { storage, logger, now, live, activity, writes } = options;

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
    options.onFinished();
    endCalls(run, exitState);
    activity.note(run);
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
    // Measured as the run ends (its stdout and stderr flushed above), before anything is written.
    const metrics = measureRun(run, performance.now());
    const at = now().toISOString();
    // What was held back (the start of a short run) is written with the end, in one statement.
    const held = run.deferred;
    run.deferred = undefined;
    clearTimeout(run.deferredTimer);
    const change: ProcessChange & { state: 'idle'; exitState: ExecutionExitState } = {
      ...held,
      state: 'idle',
      exitState,
      error,
      errorReason,
      completedAt: at,
      updatedAt: at,
      labels: run.labelList(),
      approvalId: null,
      metrics,
    };
    run.record = { ...run.record, ...change };
    reportEnd(run, exitState, errorReason);
    run.emit({ type: 'state', data: { state: 'idle', exitState } });
    run.emit({ type: 'exit', data: { exitState, error, errorReason } });
    run.trace?.end(exitState, errorReason);
    const id = run.record.id;
    const results = { output: run.output.value(), stdout: run.stdout.text(), stderr: run.stderr.text() };
    // Calls still in flight are kept as failed, without a code, their duration up to the end;
    // with those whose row a failed write left behind, they are written with the end.
    const end = Date.parse(at);
    for (const [call, { index, startedMs }] of run.pendingCalls) {
      call.durationMs = Math.max(0, end - startedMs);
      call.ok = false;
      call.resultBytes = 0;
      run.unsyncedCalls.add(index);
    }
    run.pendingCalls.clear();
    // A snapshot: a call answering after the end must not change what was persisted.
    const calls = [...run.unsyncedCalls]
      .sort((a, b) => a - b)
      .flatMap((index) => {
        const call = run.calls[index];
        return call ? [{ index, call: { ...call } }] : [];
      });
    // `wait` answers from memory now; the rows follow (reads of the id wait for them).
    run.resolveEnded();
    run
      .persist(() => storage.finish(id, change, results, calls), writes.onWriteError(id))
      .then(() => {
        if (live.get(id) === run) live.delete(id);
        run.resolveSettled();
      });
  };

  const reportEnd = (run: LiveProcess, exitState: ExecutionExitState, errorReason: ErrorReason | null) => {
    const ended = performance.now();
    const { runningAt, dispatchedAt } = run;
    options.metrics.runEnded({
      exitState,
      errorReason,
      runMs: runningAt === undefined ? null : ended - runningAt,
      queuedMs: runningAt === undefined || dispatchedAt === undefined ? null : runningAt - dispatchedAt,
    });
  };

  const errorFor = (run: LiveProcess, exitState: ExecutionExitState): string | null => {
    if (exitState === 'success') return null;
    if (run.error !== null) return run.error;
    if (exitState === 'timeout') return `timed out after ${run.timeoutMs} ms`;
    return exitState === 'canceled' ? 'canceled' : 'the process failed';
  };

  // An end the environment reports: a deadline or a cancel has its reason; a failure is the code's
  // unless the environment gave a reason with `setError` (its sandbox crashed under the run).
  const reasonFor = (run: LiveProcess, exitState: ExecutionExitState): ErrorReason | null => {
    if (exitState === 'timeout') return 'process_timeout';
    if (exitState === 'canceled') return 'process_killed';
    return exitState === 'failed' ? run.errorReason : null;
  };

  const settleNow = (run: LiveProcess, exitState: ExecutionExitState): void => {
    const { forced } = run;
    if (forced) finish(run, forced.exitState, forced.error, forced.errorReason);
    else finish(run, exitState, errorFor(run, exitState), reasonFor(run, exitState));
  };

  const settle = (run: LiveProcess, exitState: ExecutionExitState): void => {
    const { endsRead } = options;
    // Calls still open as the environment ends the run: their ends may be in the gateway's
    // messages not read yet (the sandbox had their answers). Read first, so they keep their outcome.
    // So are calls made under a kept decision: the main thread hears of them after they left.
    if (!endsRead || run.finished || (run.pendingCalls.size === 0 && run.kept === undefined)) {
      settleNow(run, exitState);
      return;
    }
    void atMost(
      endsRead().catch(() => undefined),
      ENDS_WAIT_MS,
      undefined,
    ).then(() => settleNow(run, exitState));
  };

  return { endCalls, finish, settle };
}
