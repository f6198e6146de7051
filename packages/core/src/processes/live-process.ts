import { type ErrorReason, type ExecutionExitState, TOOL_LABELS, type ToolLabel } from '@cyrnel/sdk';
import type {
  CallDecision,
  ProcessEvent,
  ProcessRecord,
  ProcessResult,
  ToolCallRecord,
} from '@cyrnel/sdk/api';
import type { EnvironmentLease } from '../environments/environment-provider';
import type { RunTrace } from '../telemetry/tracing';
import { createOutputMerger, type OutputMerger } from './output-merger';
import type { ProcessLimits } from './process-limits';
import type { ProcessChange } from './process-storage';
import { createTextCapture, type TextCapture } from './text-capture';

/** A listener of process events. */
export type ProcessListener = (event: ProcessEvent) => void;

/** Writes of one run chained in a row before the event loop gets a turn. */
const WRITES_PER_TURN = 16;

/**
 * One run of a process held in memory from dispatch until its end is persisted. While it is in
 * the manager's table it is the source of truth for reads; the store may lag behind by the
 * writes still queued on `persisted`.
 */
export class LiveProcess {
  /** The record as it is now. */
  record: ProcessRecord;
  /**
   * The deadline of this run: the record's `timeoutMs`, the default for a record stored without
   * one (by an older host), never above `maxTimeoutMs` (which an operator may have lowered since).
   */
  readonly timeoutMs: number;
  readonly stdout: TextCapture;
  readonly stderr: TextCapture;
  readonly output: OutputMerger;
  readonly calls: ToolCallRecord[] = [];
  /** Calls still waiting for their answer, with their index and their start in epoch milliseconds. */
  readonly pendingCalls = new Map<ToolCallRecord, { readonly index: number; readonly startedMs: number }>();
  /** Indexes of calls whose row may not match memory (a failed write): the end of the run writes them. */
  readonly unsyncedCalls = new Set<number>();
  /** The data-flow labels of the tools this run called. */
  readonly labels = new Set<ToolLabel>();
  /**
   * Decisions (by `service.tool`) a gateway worker may apply to this run's later calls without
   * asking: those calls are journaled there and reported afterwards, so the run's end first reads
   * what the workers sent. Undefined until one is kept.
   */
  kept: Map<string, CallDecision | null> | undefined;
  /** The approvals this run waits for (its state is `waiting` while there is one). */
  readonly approvals = new Set<string>();
  /** When the deadline was last armed (`performance.now()`) and what was left of it then. */
  deadlineArmedAt = 0;
  deadlineLeftMs = 0;
  /** Resolves the waiters of `nextWait` when the run starts waiting for an approval. */
  private waitingListeners: (() => void)[] = [];
  /** Every event of this run, for replay to late subscribers. */
  readonly events: ProcessEvent[] = [];
  readonly listeners = new Set<ProcessListener>();
  /** Output patches of `events` this run made by merging (never handed out live): merged in place. */
  private readonly mergedPatches = new WeakSet<object>();
  /** The message of `setError`, if any. */
  error: string | null = null;
  /** The reason `setError` gave with it (a failure that is not the code's own, e.g. a sandbox crash). */
  errorReason: ErrorReason | null = null;
  lease: EnvironmentLease | undefined;
  /** The trace context stored with the process when it was queued (tracing), or null. */
  traceContext: string | null = null;
  /** Taken from the shared queue (several hosts): possibly queued on another host. */
  claimed = false;
  /** The span of this run, while tracing. */
  trace: RunTrace | undefined;
  /** Set once a kill or the deadline decided how the run ends. */
  forced: { exitState: ExecutionExitState; error: string; errorReason: ErrorReason } | undefined;
  /**
   * Aborted when the run ends or is being forced to (kill, deadline, shutdown): the signal of its
   * tool calls in flight, so adapters stop their outbound work for a result nobody will read.
   */
  readonly ending = new AbortController();
  /** `performance.now()` when the run was handed to its environment (for the metrics). */
  dispatchedAt: number | undefined;
  /** The environment said the execution waits for a slot. */
  reportedQueued = false;
  /** Running since dispatch without a report from the environment yet (see `reportState`). */
  provisional = false;
  /** The run's deadline timer, armed when it runs. */
  deadline: NodeJS.Timeout | undefined;
  finished = false;
  timers: NodeJS.Timeout[] = [];
  /** The backstop of a run the environment keeps `queued` (cleared once it runs). */
  queueTimer: NodeJS.Timeout | undefined;
  /** Tail of the chain of storage writes of this run (kept in order). */
  persisted: Promise<void> = Promise.resolve();
  /** Resolves once the end of the run is persisted. */
  readonly settled: Promise<void>;
  resolveSettled!: () => void;
  /** A change written later, or with the end if the run ends first (the start of a run). */
  deferred: ProcessChange | undefined;
  deferredTimer: NodeJS.Timeout | undefined;
  /** Resolves when the run ends in memory (its results known), before they are persisted. */
  readonly ended: Promise<void>;
  resolveEnded!: () => void;
  /**
   * `performance.now()` when the run last started running (cleared when its environment queued
   * it again): where its wall time (`ProcessRecord.metrics.wallMs`) and the run-time metrics
   * count from.
   */
  runningAt: number | undefined;
  /** The CPU time its environment reported (`reportUsage`), the environment's claim. */
  cpuClaimMs: number | undefined;
  /** Resolves with the `performance.now()` time the run started running; never if it does not. */
  readonly running: Promise<number>;
  resolveRunning!: (at: number) => void;

  constructor(
    record: ProcessRecord,
    readonly code: string,
    limits: ProcessLimits,
  ) {
    this.record = record;
    this.timeoutMs = Math.min(record.timeoutMs ?? limits.defaultTimeoutMs, limits.maxTimeoutMs);
    this.stdout = createTextCapture({ name: 'stdout', maxBytes: limits.maxStdoutBytes });
    this.stderr = createTextCapture({ name: 'stderr', maxBytes: limits.maxStderrBytes });
    this.output = createOutputMerger(limits.maxOutputBytes);
    this.settled = new Promise((resolve) => {
      this.resolveSettled = resolve;
    });
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    this.running = new Promise((resolve) => {
      this.resolveRunning = resolve;
    });
  }

  /** Record an event and hand it to the subscribers; the stream ends after `exit`. */
  emit(event: ProcessEvent): void {
    const last = this.events.at(-1);
    if ((event.type === 'stdout' || event.type === 'stderr') && last?.type === event.type) {
      // Consecutive chunks of one stream replay as one: the log stays small for chatty code.
      this.events[this.events.length - 1] = {
        type: event.type,
        data: { text: last.data.text + event.data.text },
      };
    } else if (event.type === 'output' && last?.type === 'output') {
      // Consecutive patches replay as their shallow merge (the same result), so a loop of
      // `cyrnel.output` calls keeps one event, bounded by the output cap, not one per call. The
      // merge is a copy of the first patch (handed to subscribers as it was) that later patches
      // are merged into: each costs its own size, not the size of everything merged so far.
      let patch = last.data.patch;
      if (!this.mergedPatches.has(patch)) {
        // Without a prototype (a dictionary to V8; `__proto__` an own property), as the merger's.
        patch = Object.assign(Object.create(null) as Record<string, unknown>, patch);
        this.mergedPatches.add(patch);
        this.events[this.events.length - 1] = { type: 'output', data: { patch } };
      }
      for (const key of Object.keys(event.data.patch)) patch[key] = event.data.patch[key];
    } else {
      this.events.push(event);
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing subscriber must not break the run or the other subscribers.
      }
    }
    if (event.type === 'exit') this.listeners.clear();
  }

  /** Replay the events so far to `listener`, then keep it until `exit`. */
  subscribe(listener: ProcessListener): () => void {
    for (const event of this.events) {
      // Handed out now: a later patch merges into a fresh copy, never under this subscriber.
      if (event.type === 'output') this.mergedPatches.delete(event.data.patch);
      listener(event);
    }
    if (this.finished) return () => {};
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Queue a storage write after the previous ones of this run. */
  persist(write: () => Promise<void>, onError: (error: unknown) => void): Promise<void> {
    // A synchronous store (SQLite) settles each write in microtasks: a chain of thousands (a run
    // making thousands of calls) would run in one turn of the event loop. Every so often the
    // chain lets the loop turn first.
    const turn = ++this.writes % WRITES_PER_TURN === 0;
    this.persisted = this.persisted
      .then(turn ? () => new Promise<void>((resolve) => setImmediate(resolve)).then(write) : write)
      .catch(onError);
    return this.persisted;
  }
  /** Writes chained so far (see `persist`). */
  private writes = 0;

  /** The labels of the tools this run called, in the order of `TOOL_LABELS`. */
  labelList(): ToolLabel[] {
    return TOOL_LABELS.filter((label) => this.labels.has(label));
  }

  /** Resolves the next time the run waits for an approval (at once when it does now). */
  nextWait(): Promise<void> {
    if (this.record.state === 'waiting') return Promise.resolve();
    return new Promise((resolve) => this.waitingListeners.push(resolve));
  }

  /** The run waits for an approval now: wake `nextWait`'s waiters. */
  startedWaiting(): void {
    const listeners = this.waitingListeners;
    this.waitingListeners = [];
    for (const listener of listeners) listener();
  }

  /** The results as they are now (a copy of the output while the run may still change it). */
  result(): ProcessResult {
    const output = this.output.value();
    return {
      ...this.record,
      output: this.finished ? output : Object.assign(Object.create(null) as Record<string, unknown>, output),
      stdout: this.stdout.text(),
      stderr: this.stderr.text(),
    };
  }
}
