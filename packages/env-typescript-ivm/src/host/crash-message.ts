import { CATASTROPHIC_ERROR_MARKER, CRASHED_EXECUTION_MARKER } from '../shared/sandbox-protocol';

/** How a sandbox child died, as far as its exit and the last lines of its stderr tell. */
export interface Crash {
  /** What happened, a clause for the executions' messages ("the sandbox process aborted …"). */
  readonly what: string;
  /** The execution whose isolate V8 lost control of, when the child named it before aborting. */
  readonly culprit?: number;
  /**
   * V8 aborted on an isolate's heap (or aborted without a word): an execution that was computing
   * caused it, not one whose isolate sat idle. False for the process heap (an idle execution's
   * answer may have filled it) and for other exits (a signal from outside).
   */
  readonly computing: boolean;
}

/** What {@link describeCrash} reads. */
export interface CrashEvidence {
  readonly signal: NodeJS.Signals | null;
  readonly code: number | null;
  /** The last few KB the child wrote to stderr. */
  readonly stderrTail: string;
  /** The heap limit of each isolate (`memoryLimitMb`). */
  readonly limitMb: number;
  /** The child's own heap limit (`--max-old-space-size`). */
  readonly processHeapMb: number;
}

const OUT_OF_MEMORY = /out.of.memory|heap limit|allocation failed/i;

/** The line after `marker` in `tail` (its last occurrence), trimmed; undefined when absent. */
function lineAfter(tail: string, marker: string): string | undefined {
  const at = tail.lastIndexOf(marker);
  if (at < 0) return undefined;
  return (
    tail
      .slice(at + marker.length)
      .split('\n')[0]
      ?.trim() ?? ''
  );
}

/**
 * Why a child died. A child that aborts on isolated-vm's `onCatastrophicError` names the
 * execution whose isolate it was and what V8 reported, on stderr, first: running out of heap
 * there is an execution's heap growing in a way V8 could not contain (Map/Set/dictionary growth
 * escapes isolated-vm's accounting). Without that report, V8's own "JavaScript heap out of memory"
 * is the child's process heap (what executions exchange with the host passes through it), which
 * the per-execution limit does not govern, so that limit is not blamed. A bare SIGABRT is most
 * likely V8 running out of memory; anything else is an unexpected exit.
 *
 * @example
 * ```ts
 * describeCrash({ signal: 'SIGKILL', code: null, stderrTail: '', limitMb: 128, processHeapMb: 256 });
 * // { what: 'the sandbox process exited unexpectedly (SIGKILL)', computing: false }
 * ```
 */
export function describeCrash(evidence: CrashEvidence): Crash {
  const { signal, code, stderrTail, limitMb, processHeapMb } = evidence;
  const named = Number(lineAfter(stderrTail, CRASHED_EXECUTION_MARKER));
  const culprit = Number.isSafeInteger(named) ? { culprit: named } : {};
  const reported = lineAfter(stderrTail, CATASTROPHIC_ERROR_MARKER);
  if (reported !== undefined) {
    if (OUT_OF_MEMORY.test(reported)) {
      return {
        what: `V8 ran out of heap for an execution (a Map, Set or object growing without bound escapes the ${limitMb} MB memory limit of an execution) and the sandbox process aborted`,
        computing: true,
        ...culprit,
      };
    }
    return {
      what: `the sandbox's JavaScript engine hit a catastrophic error (${reported || 'no details'}) and the sandbox process aborted`,
      computing: true,
      ...culprit,
    };
  }
  if (OUT_OF_MEMORY.test(stderrTail)) {
    return {
      what: `the sandbox process exhausted its own heap (${processHeapMb} MB, through which tool answers, call arguments and output pass) and aborted`,
      computing: false,
    };
  }
  if (signal === 'SIGABRT' || code === 134) {
    return { what: 'the sandbox process aborted (most likely out of memory)', computing: true };
  }
  return { what: `the sandbox process exited unexpectedly (${signal ?? `code ${code}`})`, computing: false };
}
