import type { CatalogChange, DirectCallEvent } from '@cyrnel/sdk';
import type { HostCallKind } from './host-call-kind';
import type { RunJob, RunResult } from './run-job';

/** Settings a sandbox child receives as its single argv entry (JSON). */
export interface ChildSettings {
  readonly memoryLimitMb: number;
  /** `DirectCalls.runtimeUrl` of the host: absent, every tool call goes through the host. */
  readonly directCallRuntimeUrl?: string;
}

/** What a child asks the host: the sandbox's calls, and the preparation of a direct call. */
export type ChildCallKind = HostCallKind | 'prepareDirect';

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
      /** The value as JSON text (a tool result the host never parsed): the child parses it. */
      readonly json?: string;
      readonly error?: unknown;
    }
  /**
   * A slice of the JSON text of a reply still to come (`reply` with `json` carries the last one):
   * megabytes go out in slices, so no single write holds the host's event loop.
   */
  | { readonly t: 'reply-part'; readonly id: number; readonly json: string }
  | { readonly t: 'kill'; readonly eid: number }
  /** The catalog changed: drop what direct calls prepared, then answer `ack` with the same id. */
  | { readonly t: 'catalog'; readonly id: number; readonly change: CatalogChange };

/** Child → host messages; the child sends them in batches (`{ t: 'batch', m: [...] }`). */
export type ChildMessage =
  | { readonly t: 'ready' }
  | { readonly t: 'ack'; readonly id: number }
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
  /** `audited`: the audit lines written for this execution (the host reads them all first). */
  | ({ readonly t: 'done'; readonly eid: number; readonly audited?: number } & RunResult);

/**
 * The child's file descriptor for audit lines (direct tool calls): a pipe beside the IPC channel,
 * written synchronously, so what a child wrote survives its crash. One JSON {@link AuditLine}
 * per line.
 */
export const AUDIT_FD = 4;

/** One audit line: an execution id and a direct call's start or end. */
export interface AuditLine {
  readonly eid: number;
  readonly event: DirectCallEvent;
}

/** The envelope every child message travels in. */
export interface ChildBatch {
  readonly t: 'batch';
  readonly m: readonly ChildMessage[];
}
