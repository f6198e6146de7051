import type { HostCallKind } from './host-call-kind';
import type { RunJob, RunResult } from './run-job';

/** Settings a sandbox child receives as its single argv entry (JSON). */
export interface ChildSettings {
  readonly memoryLimitMb: number;
}

/** What a child asks the host: the sandbox's calls. */
export type ChildCallKind = HostCallKind;

/**
 * Line prefix a child writes to stderr just before aborting on isolated-vm's
 * `onCatastrophicError`, so the host can tell that abort from running out of memory.
 */
export const CATASTROPHIC_ERROR_MARKER = 'cyrnel-sandbox: catastrophic error: ';

/**
 * Line prefix a child writes to stderr just before {@link CATASTROPHIC_ERROR_MARKER}, followed by
 * the id of the execution whose isolate failed, so the host fails that one as the cause and not
 * the others it held.
 */
export const CRASHED_EXECUTION_MARKER = 'cyrnel-sandbox: crashed execution: ';

/** Host → child messages. */
export type HostMessage =
  | { readonly t: 'run'; readonly eid: number; readonly job: RunJob }
  | {
      readonly t: 'reply';
      readonly id: number;
      readonly ok: boolean;
      readonly value?: unknown;
      /** A tool's answer as JSON text (a `JsonText`, possibly after `reply-part` slices): parsed in the isolate, not on the way. */
      readonly json?: string;
      readonly error?: unknown;
    }
  /**
   * A slice of the JSON text of a reply still to come (`reply` with `json` carries the last one):
   * megabytes go out in slices, so no single write holds the host's event loop.
   */
  | { readonly t: 'reply-part'; readonly id: number; readonly json: string }
  | { readonly t: 'kill'; readonly eid: number }
  /**
   * Stop (`paused: true`) or restart the clock of the execution's deadline: the host holds one of
   * its calls for a person's approval. Ignored for an execution the child does not run.
   */
  | { readonly t: 'pause'; readonly eid: number; readonly paused: boolean }
  /**
   * The egress gateway's channel (sent over IPC, never argv): tool calls go to these Unix sockets,
   * authenticated by the token; the host grants it each execution it runs here.
   */
  | { readonly t: 'egress'; readonly endpoints: readonly string[]; readonly token: string };

/** Child → host messages; the child sends them in batches (`{ t: 'batch', m: [...] }`). */
export type ChildMessage =
  | { readonly t: 'ready' }
  | {
      readonly t: 'call';
      readonly eid: number;
      readonly id: number;
      readonly kind: ChildCallKind;
      readonly args: readonly unknown[];
    }
  | { readonly t: 'stdout' | 'stderr'; readonly eid: number; readonly text: string }
  /**
   * `cyrnel.output` patches merged in the child: a JSON array of `[key, value]` entries (an array,
   * so the host builds the patch without a new object shape per set of keys).
   */
  | { readonly t: 'output'; readonly eid: number; readonly json: string }
  /** The execution started awaiting the host (its isolate idle) or runs again. */
  | { readonly t: 'activity'; readonly eid: number; readonly awaiting: boolean }
  | ({ readonly t: 'done'; readonly eid: number } & RunResult);

/** The envelope every child message travels in. */
export interface ChildBatch {
  readonly t: 'batch';
  readonly m: readonly ChildMessage[];
}
