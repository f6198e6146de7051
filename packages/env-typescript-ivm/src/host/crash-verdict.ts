import type { RunResult } from '../shared/run-job';
import type { Crash } from './crash-message';

/** How one execution ended in a sandbox child, as the host's handle of the child reports it. */
export interface SandboxRunResult extends RunResult {
  /** Why it failed when that was not its code: the child died under it. */
  readonly reason?: 'sandbox_crashed' | 'sandbox_collateral';
  /**
   * The child died under it before it made a tool call or wrote anything, so running it again
   * cannot repeat anything anyone saw: the pool runs it again once on a fresh child. `alone`: the
   * crash could not be pinned on one execution, so the retry shares its child with nobody (the
   * cause, retried too, then fails on its own).
   */
  readonly retry?: 'shared' | 'alone';
}

/** An execution the child held when it died, as the host saw it. */
export interface CrashedExecution {
  readonly eid: number;
  /** It made a tool call or wrote stdout, stderr or output: running it again would repeat that. */
  readonly touched: boolean;
  /** Its isolate was idle, awaiting the host (it was not computing). */
  readonly awaiting: boolean;
  /** The host was stopping it (timeout or kill) and killed the child when it did not answer. */
  readonly forced: boolean;
}

/**
 * The execution that brought the child down: the one the child named, else the only one it
 * held, else the one the host was stopping when it killed the child, else, when V8 aborted on an
 * isolate's heap, the only one computing (a child takes a second execution only while all of its
 * executions await the host, and an awaiting one allocates nothing in its isolate). Undefined
 * when it cannot be told.
 */
function findCulprit(crash: Crash, held: readonly CrashedExecution[]): number | undefined {
  if (crash.culprit !== undefined && held.some((e) => e.eid === crash.culprit)) return crash.culprit;
  if (held.length === 1) return held[0]?.eid;
  const forced = held.filter((e) => e.forced);
  if (forced.length === 1) return forced[0]?.eid;
  if (!crash.computing) return undefined;
  const computing = held.filter((e) => !e.awaiting);
  return computing.length === 1 ? computing[0]?.eid : undefined;
}

/**
 * How each execution a dead child held ends. The cause fails `sandbox_crashed`. Another one
 * that made no tool call and wrote nothing is run again once (`retry`); one that did fails
 * `sandbox_collateral` when the cause is known, `sandbox_crashed` when it is not (it may be the
 * cause). The error and reason are also what a retried execution ends with should it be caught
 * in a crash again. Executions being forced (`forced`) keep their forced end: none is given.
 *
 * @example
 * ```ts
 * judgeCrash({ what: 'the sandbox process aborted', computing: true, culprit: 1 }, [
 *   { eid: 1, touched: false, awaiting: false, forced: false },
 *   { eid: 2, touched: true, awaiting: true, forced: false },
 * ]); // 1: sandbox_crashed; 2: sandbox_collateral
 * ```
 */
export function judgeCrash(
  crash: Crash,
  held: readonly CrashedExecution[],
): Map<number, SandboxRunResult & { readonly exit: 'failed' }> {
  const culprit = findCulprit(crash, held);
  const others = held.length - 1;
  const verdicts = new Map<number, SandboxRunResult & { readonly exit: 'failed' }>();
  for (const execution of held) {
    if (execution.forced) continue;
    const { eid, touched } = execution;
    if (eid === culprit) {
      verdicts.set(eid, {
        exit: 'failed',
        reason: 'sandbox_crashed',
        error: `This execution crashed its sandbox process: ${crash.what}; it was stopped and the sandbox restarted`,
      });
      continue;
    }
    const retry = touched ? {} : { retry: culprit === undefined ? ('alone' as const) : ('shared' as const) };
    const notAgain = touched
      ? 'it had already made tool calls or written output, so it was not run again'
      : 'it had been run again once already';
    if (culprit !== undefined) {
      verdicts.set(eid, {
        exit: 'failed',
        reason: 'sandbox_collateral',
        error: `Another execution of the same key sharing this sandbox process crashed it (${crash.what}); ${notAgain}: run it again`,
        ...retry,
      });
      continue;
    }
    const sharing =
      others > 0
        ? ` (with ${others} other execution(s) of the same key sharing the sandbox, any of which may have caused it; ${notAgain})`
        : '';
    verdicts.set(eid, {
      exit: 'failed',
      reason: 'sandbox_crashed',
      error: `The sandbox process running this execution crashed: ${crash.what}; it was stopped and the sandbox restarted${sharing}`,
      ...retry,
    });
  }
  return verdicts;
}
