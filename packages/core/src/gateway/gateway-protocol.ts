import type { MessagePort } from 'node:worker_threads';
import type { CatalogChange } from '@cyrnel/sdk';
import type { RelayedSpan } from '../telemetry/relayed-span';
import type { TraceCarrier } from '../telemetry/trace-carrier';
import type { AnswerBudget } from './bounded-json';

/** What a gateway worker starts with (`workerData`). */
export interface WorkerSettings {
  /** Its Unix socket, in the gateway's private directory. */
  readonly socketPath: string;
  /** Which worker it is (call ids are unique across the gateway: `n * workers + index`). */
  readonly index: number;
  readonly workers: number;
  readonly budget: AnswerBudget;
  /**
   * Tracing is on: adapters' spans are recorded and sent to the main thread, and with
   * `argumentShapes` each audited start carries its parameters' shape. Absent: off.
   */
  readonly tracing?: {
    readonly argumentShapes: boolean;
    /** Where its spans go, as batches of `PackedSpan`s (the exporter thread); absent: to the main thread. */
    readonly spanPort?: MessagePort;
  };
  /**
   * The file of its call journal (see `CallJournalLine`): with one, a start the main thread said to
   * `keep` the decision of is written there and reported in an `audits` batch instead of waiting
   * for the main thread. Absent: every start waits.
   */
  readonly journal?: string;
}

/**
 * One line of a worker's call journal (JSON): the start of a call made under a kept decision,
 * written before its request leaves, so that a host killed before the main thread stored it still
 * lists it when it starts again.
 */
export interface CallJournalLine {
  /** The line's number in this worker's journal (increasing). */
  readonly q: number;
  /** The execution (process id). */
  readonly p: number;
  readonly s: string;
  readonly t: string;
  /** Epoch milliseconds: the call's `startedAt`, as the main thread records it too. */
  readonly at: number;
  /** The call id (as in its `AuditEvent`). */
  readonly id: number;
}

/**
 * A call's start or end, as a worker reports it for the audit. A start is acknowledged before the
 * request leaves (`audit`), unless it is made under a kept decision (journaled, then sent in an
 * `audits` batch); an end is queued in a batch and not waited for: the host reads every start and
 * end queued before it settles a run (`sync`).
 */
export type AuditEvent =
  | {
      readonly kind: 'start';
      /** Unique across the gateway; the `end` names it again. */
      readonly id: number;
      readonly serviceId: string;
      readonly toolId: string;
      /** Epoch milliseconds. */
      readonly startedAt: number;
      /** The parameters' shape (`argumentShape`), when tracing records shapes. */
      readonly shape?: string;
      /**
       * Made under a decision the main thread said to keep: journaled (line `kept`), and its request
       * already left; recorded with that decision.
       */
      readonly kept?: number;
      /** With `kept` on a traced run: the span id the worker drew for the call's span. */
      readonly spanId?: string;
    }
  | {
      readonly kind: 'end';
      readonly id: number;
      readonly ok: boolean;
      readonly errorCode: string | null;
      readonly errorReason: string | null;
      readonly durationMs: number;
      /** The upstream's HTTP status when the adapter answered one (`{ status, … }`), else null. */
      readonly status: number | null;
      /** UTF-8 bytes of the answer's JSON text sent to the sandbox (0 when the call failed). */
      readonly resultBytes: number;
    };

/**
 * The main thread's answer to a call's start: `true` stored (the request may leave), `false`
 * refused (the execution is not running), `'host'` not simply allowed by the policies (the call goes
 * "through the host", whose gate asks a person or blocks it).
 */
export type AuditVerdict = boolean | 'host';

/**
 * A stored start's answer with the trace context of its call's span, which the worker continues
 * (the adapter's request to its upstream becomes its child).
 */
export interface TracedVerdict {
  readonly ok: true;
  readonly trace?: TraceCarrier;
  /**
   * The same decision holds for this execution's later calls of the tool until the next catalog
   * change (a worker with a journal then makes them without asking).
   */
  readonly keep?: true;
}

/**
 * The main thread's answer to which connection a call of execution `eid` uses: the id its
 * adapter state is held under in the workers (`<service>` or `<service>@<connection>`), or why none.
 */
export type RouteAnswer = { readonly instanceId: string } | { readonly error: WireError };

/**
 * The main thread's answer to a call the upstream refused (HTTP 401): `retry` when the adapter
 * state signs in with OAuth and its tokens were refreshed (the call is made once more, with the
 * state prepared again), false when it does not; or why the refresh failed.
 */
export type ReauthorizeAnswer = { readonly retry: boolean } | { readonly error: WireError };

/** A coded failure as it crosses a thread or a socket. */
export interface WireError {
  readonly status: number;
  readonly code: string;
  readonly reason: string;
  readonly message: string;
}

/**
 * Tools whose decision one execution keeps at most: the main thread says `keep` for no more, and a
 * worker holds no more (code naming thousands of tools has the rest decided call by call).
 */
export const MAX_KEPT_TOOLS = 1000;

/** A call's start or end of execution `eid`, in an `audits` batch. */
export interface AuditedEvent {
  readonly eid: number;
  readonly event: AuditEvent;
}

/** Main thread → worker. */
export type ToWorker =
  | { readonly t: 'prepared'; readonly id: number; readonly value: unknown }
  | { readonly t: 'changed'; readonly id: number; readonly change: CatalogChange }
  /** The answer to a worker's `granted?` (see {@link GrantAnswer}). */
  | { readonly t: 'grant'; readonly id: number; readonly answer: GrantAnswer }
  /**
   * An execution of a token ended (`eid` null: the channel closed). Sent only to a worker that was
   * told the execution is granted (and for a channel, to every running worker).
   */
  | { readonly t: 'revoke'; readonly token: string; readonly eid: number | null }
  | {
      readonly t: 'audited';
      readonly id: number;
      readonly ok: AuditVerdict;
      readonly trace?: TraceCarrier;
      readonly keep?: true;
    }
  /** Every journaled start up to line `q` is stored: the closed journal files up to it may go. */
  | { readonly t: 'journaled'; readonly q: number }
  | { readonly t: 'routed'; readonly id: number; readonly route: RouteAnswer }
  | { readonly t: 'reauthorized'; readonly id: number; readonly answer: ReauthorizeAnswer }
  | {
      readonly t: 'invoke';
      readonly id: number;
      readonly serviceId: string;
      readonly toolId: string;
      readonly parameters: Record<string, unknown>;
      /** The call's span on the main thread, continued by the worker (tracing). */
      readonly trace?: TraceCarrier;
    }
  | { readonly t: 'abort'; readonly id: number }
  | { readonly t: 'close'; readonly id: number }
  /**
   * Answered with an `ack` once every call end sent before it was sent: the barrier the host passes
   * before it settles a run whose calls' ends it has not all read (ends are not acknowledged).
   */
  | { readonly t: 'sync'; readonly id: number }
  /**
   * A new port to the exporter thread of tracing, for a worker whose port closed (the thread was
   * replaced): offered when the worker's spans come through the main thread.
   */
  | { readonly t: 'span-port'; readonly port: MessagePort };

/**
 * Whether a channel's token may call for an execution, as the main thread answers a worker that
 * got a call it was not told about: `yes` granted (the worker keeps it until revoked), `no` not
 * granted (the call is refused; asked again next time), `closed` no such channel (the connection is
 * closed too).
 */
export type GrantAnswer = 'yes' | 'no' | 'closed';

/** Worker → main thread. */
export type FromWorker =
  | { readonly t: 'listening' }
  /** A call came for an execution this worker was not told is granted to the token: is it? */
  | { readonly t: 'granted?'; readonly id: number; readonly token: string; readonly eid: number }
  | { readonly t: 'prepare'; readonly id: number; readonly serviceId: string; readonly toolId: string }
  /** A call's start, answered with `audited` once stored (the request leaves only then). */
  | {
      readonly t: 'audit';
      readonly id: number;
      readonly eid: number;
      readonly event: AuditEvent & { readonly kind: 'start' };
    }
  /**
   * Starts made under kept decisions (journaled) and ends, in order, sent together every few
   * milliseconds and before any other message (a `sync`'s answer comes after them). `q`: the
   * journal's last line among them, while a closed journal file waits to be removed once every
   * line up to it is stored (answered with `journaled`).
   */
  | { readonly t: 'audits'; readonly events: readonly AuditedEvent[]; readonly q?: number }
  | {
      readonly t: 'route';
      readonly id: number;
      readonly eid: number;
      readonly serviceId: string;
      /** The connection the code named (hostile: the main thread checks it). */
      readonly connection?: unknown;
    }
  | {
      readonly t: 'reauthorize';
      readonly id: number;
      /** The adapter state the refused call used (`<service>` or `<service>@<connection>`). */
      readonly instanceId: string;
      /** When the refused call started (epoch ms): tokens obtained later are simply used. */
      readonly since: number;
    }
  | { readonly t: 'ack'; readonly id: number }
  /** Spans the worker's adapters finished (tracing). */
  | { readonly t: 'spans'; readonly spans: readonly RelayedSpan[] }
  | {
      readonly t: 'answer';
      readonly id: number;
      /** The result as JSON text; absent with `error` or `host`. */
      readonly json?: string;
      /** With `json`: the upstream's HTTP status when the adapter answered one, else null. */
      readonly status?: number | null;
      readonly error?: WireError;
      /** Not the gateway's call: the main thread's own adapter makes it. */
      readonly host?: true;
    };
