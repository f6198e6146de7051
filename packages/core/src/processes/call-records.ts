import type { ModuleLogger } from '@cyrnel/sdk';
import {
  type CallDecision,
  ERROR_REASONS,
  type ErrorCode,
  type ErrorReason,
  type ToolCallRecord,
} from '@cyrnel/sdk/api';
import { cyrnelError, isCyrnelError } from '../errors';
import { type HostMetrics, NO_HOST_METRICS } from '../metrics/host-metrics';
import type { CallTrace } from '../telemetry/tracing';
import type { LiveProcess } from './live-process';
import type { IndexedCall, ProcessStorage } from './process-storage';

/** How a tool call ended. */
export interface CallOutcome {
  readonly ok: boolean;
  /** The stable code of a failure; default: from `errorReason`, else `upstream_error` when not ok. */
  readonly errorCode?: ErrorCode | null;
  /** The stable reason of a failure, when one is known. */
  readonly errorReason?: ErrorReason | null;
  /** Milliseconds from the start to the answer; default: measured on the host's clock. */
  readonly durationMs?: number;
  /** The upstream's HTTP status when the adapter answered one (for the metrics); default none. */
  readonly status?: number | null;
  /**
   * Bytes of the answer delivered to the program (`answerBytes`), counted where the answer passed
   * the host; ignored when the call failed (it counts 0). Default 0.
   */
  readonly resultBytes?: number;
}

/**
 * A tool call recorded as started. Its request may leave only once `started` resolved: the start
 * is then in the process storage, so a host killed while the call is in flight still lists it
 * (with `ok: null`). `started` rejects with a `CyrnelError` when the start could not be stored;
 * the call is then recorded as failed and its request must not be sent.
 */
export interface OpenedCall {
  /** The call's position among the run's calls. */
  readonly index: number;
  readonly started: Promise<void>;
  /** The call's span, while tracing. */
  readonly trace?: CallTrace;
  /** Record the answer (once; later ends are ignored). The row is completed in the background. */
  end(outcome: CallOutcome): void;
}

/** The tool calls of the runs: recorded durably at their start, completed at their answer. */
export interface CallRecords {
  /**
   * Open a call of `run`: it is in the run's calls at once, and its start is appended to the
   * storage (starts opened while a write is under way go together in the next statement).
   */
  open(
    run: LiveProcess,
    serviceId: string,
    toolId: string,
    startedMs?: number,
    decision?: CallDecision | null,
    /** The span id drawn for its span already (a gateway worker's kept call). */
    spanId?: string,
    /**
     * Its request left already, durable in the egress gateway's journal (a worker's kept call):
     * the start is then written with what the run writes next, or after END_WRITE_DELAY_MS, so
     * that a run of kept calls takes one statement for many.
     */
    made?: boolean,
  ): OpenedCall;
}

/** Starts written in one statement at most. */
const MAX_BATCH = 200;

/**
 * Longest an answered call's end waits to be written with the run's next start (one statement for
 * both) before it is written alone. A host killed meanwhile lists such a call as interrupted
 * (`ok: null`), as it lists a call whose answer it never got. A kept call's start waits as long
 * (its worker's journal holds it meanwhile, and recovery reads the journal after a crash).
 */
export const END_WRITE_DELAY_MS = 20;

/**
 * A start waiting for its write. `answered`: its end came first (a call reported after it was
 * made, as the egress gateway's kept calls are): `entry` then holds the end, written as one.
 */
interface QueuedStart {
  entry: IndexedCall;
  answered?: true;
  /** Its request left already (`made`): the start waits for the next write, as an end does. */
  made?: true;
  /** Taken into a statement: an end from now on is written on its own. */
  taken?: true;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Per run: starts waiting for the next write, ends not written yet, whether that write is already
 * queued, and the timer that writes ends alone when no start came.
 */
interface OpenQueue {
  batch: QueuedStart[];
  ended: IndexedCall[];
  queued: boolean;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Create the call records of a manager. Gated calls (`invokeTool`), direct calls' `record` reports
 * and the egress gateway all open calls here, so every path writes the same rows.
 *
 * @example
 * ```ts
 * const call = records.open(run, 'shop', 'getUser');
 * await call.started; // durable: now the request may leave
 * try { const answer = await send(); call.end({ ok: true }); }
 * catch (error) { call.end({ ok: false, errorReason: 'upstream_failed' }); }
 * ```
 */
export function createCallRecords(
  storage: ProcessStorage,
  logger: ModuleLogger,
  now: () => Date,
  metrics: HostMetrics = NO_HOST_METRICS,
): CallRecords {
  const queues = new WeakMap<LiveProcess, OpenQueue>();

  // Group commit: the first start of a run queues a write after the run's earlier writes; every
  // start that arrives before that write begins joins it.
  const queueOf = (run: LiveProcess): OpenQueue => {
    let queue = queues.get(run);
    if (!queue) {
      queue = { batch: [], ended: [], queued: false, timer: undefined };
      queues.set(run, queue);
    }
    return queue;
  };

  const append = (
    run: LiveProcess,
    entry: IndexedCall,
    made: boolean,
  ): { queued: QueuedStart; done: Promise<void> } => {
    const own = queueOf(run);
    let queued: QueuedStart | undefined;
    const done = new Promise<void>((resolve, reject) => {
      queued = { entry, resolve, reject, ...(made ? { made: true as const } : {}) };
      own.batch.push(queued);
    });
    if (made) {
      // Until a whole row of it is written, the run's end writes it (`unsyncedCalls`).
      run.unsyncedCalls.add(entry.index);
      later(run, own);
    } else if (!own.queued) schedule(run, own);
    return { queued: queued as QueuedStart, done };
  };

  // An end goes with the run's next start, or alone after END_WRITE_DELAY_MS. Until it is written
  // the run's end counts it among the calls it writes itself (`unsyncedCalls`).
  const appendEnd = (run: LiveProcess, entry: IndexedCall) => {
    const own = queueOf(run);
    own.ended.push(entry);
    run.unsyncedCalls.add(entry.index);
    later(run, own);
  };

  // A write within END_WRITE_DELAY_MS, unless one is queued or due already.
  const later = (run: LiveProcess, own: OpenQueue) => {
    if (own.queued || own.timer) return;
    own.timer = setTimeout(() => {
      own.timer = undefined;
      if (!own.queued && (own.ended.length > 0 || own.batch.length > 0)) schedule(run, own);
    }, END_WRITE_DELAY_MS);
    own.timer.unref();
  };

  // One statement of at most MAX_BATCH starts (with the ends written so far), then a turn of the
  // event loop before the next: thousands of starts at once must not become one long synchronous
  // write (SQLite).
  const schedule = (run: LiveProcess, own: OpenQueue) => {
    own.queued = true;
    clearTimeout(own.timer);
    own.timer = undefined;
    const id = run.record.id;
    run.persist(
      async () => {
        // After the run's end its own write has them (`unsyncedCalls`): the ends, and the starts
        // of calls already made.
        if (run.finished) own.ended.length = 0;
        const batch: QueuedStart[] = [];
        for (const item of own.batch.splice(0, MAX_BATCH)) {
          item.taken = true;
          if (run.finished && item.made) item.resolve();
          else batch.push(item);
        }
        const ended = own.ended.splice(0, MAX_BATCH);
        try {
          const starts: IndexedCall[] = [];
          for (const item of batch) (item.answered ? ended : starts).push(item.entry);
          if (starts.length > 0 || ended.length > 0) await storage.openCalls(id, starts, ended);
          for (const item of batch) item.resolve();
          for (const entry of ended) run.unsyncedCalls.delete(entry.index);
        } catch (error) {
          logger.error('process: tool calls could not be recorded', { id, error: String(error) });
          for (const item of batch) item.reject(error);
        }
        if (own.batch.length === 0 && own.ended.length === 0) {
          own.queued = false;
          return;
        }
        await new Promise((resolve) => setImmediate(resolve));
        schedule(run, own);
      },
      () => undefined,
    );
  };

  const refuse = (run: LiveProcess, index: number, call: ToolCallRecord, error: unknown) => {
    const typed = isCyrnelError(error)
      ? error
      : cyrnelError('internal', 'the tool call could not be recorded, so it was not sent', { cause: error });
    run.pendingCalls.delete(call);
    call.ok = false;
    call.errorCode = typed.code;
    call.errorReason = typed.reason;
    // The end of the run writes it (its row may be missing).
    run.unsyncedCalls.add(index);
    throw typed;
  };

  return {
    open(
      run,
      serviceId,
      toolId,
      startedMs = now().getTime(),
      decision = null,
      spanId = undefined,
      made = false,
    ) {
      const index = run.calls.length;
      const call = startedCall(serviceId, toolId, startedMs, decision);
      run.calls.push(call);
      run.pendingCalls.set(call, { index, startedMs });
      const trace = run.trace?.call(serviceId, toolId, decision, startedMs, spanId);
      const { queued, done } = append(run, { index, call: { ...call } }, made);
      // A made call's request left already (durable in a journal): whatever its write does, the
      // call goes on, and it stays among the calls the run's end writes (`unsyncedCalls`, from
      // `append`) until a whole row of it is stored.
      const started = made ? done : done.catch((error: unknown) => refuse(run, index, call, error));
      // A caller that does not wait (a direct call's report) must not leave a rejection unhandled.
      started.catch(() => undefined);
      // A start that could not be stored fails the call, unless it left: its span ends with it.
      if (trace && !made)
        started.catch((error: unknown) => trace.end({ ok: false, errorReason: reasonOf(error) }));
      let ended = false;
      return {
        index,
        started,
        ...(trace ? { trace } : {}),
        end(outcome) {
          trace?.end(outcome);
          if (ended || !run.pendingCalls.has(call)) return;
          ended = true;
          run.pendingCalls.delete(call);
          const measured = now().getTime() - startedMs;
          Object.assign(call, endedFields(outcome, measured));
          const reason = call.errorReason;
          const duration = outcome.durationMs ?? measured;
          metrics.toolCallEnded({
            serviceId,
            toolId,
            // Only a call the gate and the policies let through reaches an adapter: its ids are installed ones.
            reached: outcome.ok || call.errorCode === 'upstream_error',
            ok: outcome.ok,
            errorReason: reason,
            status: outcome.status ?? null,
            durationMs: Number.isFinite(duration) && duration >= 0 ? duration : 0,
          });
          // After the end of the run its snapshot was written: a late answer changes nothing stored.
          if (run.finished) return;
          // Answered before its start was written: the one write carries the end (a start and
          // an end of one call in one statement would be two writes of one row).
          if (!queued.taken) {
            queued.entry = { index, call: { ...call } };
            queued.answered = true;
            return;
          }
          appendEnd(run, { index, call: { ...call } });
        },
      };
    },
  };
}

/** A call's record as its start writes it: no answer yet (`ok: null`). */
export function startedCall(
  serviceId: string,
  toolId: string,
  startedMs: number,
  decision: CallDecision | null,
): ToolCallRecord {
  return {
    serviceId,
    toolId,
    startedAt: new Date(startedMs).toISOString(),
    durationMs: 0,
    ok: null,
    errorCode: null,
    errorReason: null,
    decision,
    resultBytes: null,
  };
}

/**
 * What a call's end writes into its record: the code is the given one, else its reason's, else
 * `upstream_error` (none when it succeeded); the bytes a non-negative safe integer (0 when it
 * failed); the duration `outcome.durationMs`, else `measuredMs`, rounded (0 when not a finite
 * non-negative number).
 */
export function endedFields(
  outcome: CallOutcome,
  measuredMs: number,
): Pick<ToolCallRecord, 'ok' | 'errorCode' | 'errorReason' | 'resultBytes' | 'durationMs'> {
  const reason = outcome.ok ? null : (outcome.errorReason ?? null);
  const errorCode: ErrorCode | null = outcome.ok
    ? null
    : (outcome.errorCode ?? (reason === null ? 'upstream_error' : ERROR_REASONS[reason].code));
  const bytes = outcome.ok ? outcome.resultBytes : 0;
  const duration = outcome.durationMs ?? measuredMs;
  return {
    ok: outcome.ok,
    errorCode,
    errorReason: reason,
    resultBytes: bytes !== undefined && Number.isSafeInteger(bytes) && bytes >= 0 ? bytes : 0,
    durationMs: Number.isFinite(duration) && duration >= 0 ? Math.round(duration) : 0,
  };
}

/** The reason of a refused start, as a span records it. */
function reasonOf(error: unknown): ErrorReason {
  return isCyrnelError(error) ? error.reason : 'internal';
}
