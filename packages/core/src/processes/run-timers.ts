import type { ErrorReason, ExecutionExitState } from '@cyrnel/sdk';
import { timerDelay } from '../timer-delay';
import type { LiveProcess } from './live-process';
import type { ProcessLimits } from './process-limits';

/** When each environment last started or ended a run (`performance.now()`), for the queue backstop. */
export interface EnvironmentActivity {
  /** The environment of `run` started or ended a run now. */
  note(run: LiveProcess): void;
  /** When `environment` last started or ended a run; undefined when it never did. */
  last(environment: object): number | undefined;
}

/** Create an empty {@link EnvironmentActivity}. */
export function createEnvironmentActivity(): EnvironmentActivity {
  const lastActivity = new WeakMap<object, number>();
  return {
    note(run) {
      const environment = run.lease?.environment;
      if (environment) lastActivity.set(environment, performance.now());
    },
    last: (environment) => lastActivity.get(environment),
  };
}

/** Options of {@link createRunTimers}. */
export interface RunTimersOptions {
  readonly limits: ProcessLimits;
  /** Runs by process id (the backstop looks at the other runs of the same environment). */
  readonly live: Map<number, LiveProcess>;
  readonly activity: EnvironmentActivity;
  /** End a run by force (what a timer that fires does). */
  readonly terminate: (
    run: LiveProcess,
    exitState: ExecutionExitState,
    error: string,
    errorReason: ErrorReason,
  ) => void;
}

/** The host's timers on a run: its deadline, and the backstop of a run its environment keeps queued. */
export interface RunTimers {
  /**
   * Whatever the environment does, the run ends at its deadline (restarted when armed again):
   * `timeoutMs`, or `leftMs` when the clock restarts after a pause.
   */
  armDeadline(run: LiveProcess, leftMs?: number): void;
  /**
   * The deadline of a run the environment keeps `queued` (it reported `queued` and never
   * `running`): past its own timeout plus `queueStallMs`, it ends with `timeout` as soon as its
   * environment has run nothing for `queueStallMs`. Time waiting behind busy slots never counts.
   */
  armQueueBackstop(run: LiveProcess, delayMs: number, queuedAt: number): void;
}

/** Create the timers of runs. */
export function createRunTimers(options: RunTimersOptions): RunTimers {
  const { limits, live, activity, terminate } = options;

  const armDeadline = (run: LiveProcess, leftMs = run.timeoutMs): void => {
    const { timeoutMs } = run;
    clearTimeout(run.deadline);
    run.deadlineArmedAt = performance.now();
    run.deadlineLeftMs = leftMs;
    run.deadline = setTimeout(
      () => terminate(run, 'timeout', `timed out after ${timeoutMs} ms`, 'process_timeout'),
      timerDelay(leftMs),
    );
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

  const armQueueBackstop = (run: LiveProcess, delayMs: number, queuedAt: number): void => {
    run.queueTimer = setTimeout(() => {
      run.queueTimer = undefined;
      if (run.finished || run.record.state !== 'queued') return;
      const environment = run.lease?.environment;
      const quietMs = performance.now() - ((environment && activity.last(environment)) ?? queuedAt);
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

  return { armDeadline, armQueueBackstop };
}
