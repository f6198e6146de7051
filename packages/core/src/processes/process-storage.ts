import type { ErrorReason, ExecutionExitState, ProcessState, ToolLabel } from '@cyrnel/sdk';
import type { ProcessMetrics, ProcessRecord, ProcessSummary, ToolCallRecord } from '@cyrnel/sdk/api';
import type { ServiceStatsStorage } from '../efficiency/stats-storage';
import type { ProcessQuotaStorage } from './quota-storage';

/** A process as the manager inserts it. */
export interface NewProcess {
  readonly ref: string | null;
  /** The API key that created it, or null. */
  readonly keyId: string | null;
  /** Whose connections its calls use (the key's principal), or null: shared ones only. Absent: null. */
  readonly principalId?: string | null;
  /** The connection per service the create request named (service id → name). Absent: none. */
  readonly connections?: Readonly<Record<string, string>>;
  readonly code: string;
  readonly state: 'idle' | 'queued';
  readonly timeoutMs: number | null;
  readonly envConfig: Record<string, unknown>;
  /** ISO timestamp; also the first `updatedAt`. */
  readonly createdAt: string;
  /** The host that runs it (several hosts), claimed at `createdAt`; null: none yet. */
  readonly ownerHost?: string | null;
  /**
   * The modules the run needs: a host claims it from the shared queue only when it
   * has each of them that some live host has. Ids without commas; none when absent.
   */
  readonly needs?: readonly string[];
  /**
   * The trace context of the request that queued it (opaque text of the core's tracing, at most a
   * few hundred characters), so the host that runs it continues that trace. Absent: none.
   */
  readonly traceContext?: string | null;
}

/** A process a host took from the shared queue: its record and code, to run it. */
export interface ClaimedProcess {
  readonly record: ProcessRecord;
  readonly code: string;
  /** What was stored as `traceContext` when it was queued (null or absent: none). */
  readonly traceContext?: string | null;
}

/** What a host says of itself at its heartbeat, and reads of the others. */
export interface HostRecord {
  readonly id: string;
  readonly heartbeatAt: string;
  /** The modules whose code it has, by id, with their status there (`active`, `inactive`, `failed`). */
  readonly modules: Readonly<Record<string, string>>;
}

/** Fields of a state change; absent fields are left as they are. */
export interface ProcessChange {
  readonly state?: ProcessState;
  readonly exitState?: ExecutionExitState | null;
  readonly error?: string | null;
  readonly errorReason?: ErrorReason | null;
  readonly startedAt?: string | null;
  readonly completedAt?: string | null;
  /** The host that claims the run now (a re-run), claimed at `updatedAt`. */
  readonly ownerHost?: string | null;
  /** The data-flow labels the run accumulated (`ProcessRecord.labels`). */
  readonly labels?: ToolLabel[];
  /** The approval the run waits for (state `waiting`), or null. */
  readonly approvalId?: string | null;
  /** What the run cost (`ProcessRecord.metrics`), written with its end; null clears it. */
  readonly metrics?: ProcessMetrics | null;
  /** The trace context of the request that queued a re-run (see `NewProcess.traceContext`). */
  readonly traceContext?: string | null;
  /** ISO timestamp of the change. */
  readonly updatedAt: string;
}

/** Which unfinished processes {@link ProcessStorage.failInterrupted} may fail. */
export interface InterruptedScope {
  /** This host: its own unfinished runs are leftovers of its previous life. */
  readonly hostId?: string;
  /** Hosts whose last heartbeat is before this ISO timestamp (or that have none) are gone. */
  readonly staleBefore: string;
  /**
   * Also fail runs without an owner that had started (stored by a version before hosts); at a
   * host's start only. Queued ones without an owner are the shared queue's and stay.
   */
  readonly unowned?: boolean;
}

/** What a run leaves behind, persisted once when it ends. */
export interface ProcessResults {
  readonly output: Record<string, unknown>;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A tool call of a run by its position among the run's calls (0, 1, ...): the key its start is
 * appended under and its end completed by.
 */
export interface IndexedCall {
  readonly index: number;
  readonly call: ToolCallRecord;
}

/** A kill asked of the host that runs process `id` ({@link ProcessStorage.requestKill}). */
export interface KillRequest {
  readonly id: number;
  /** Why: recorded as the run's `errorReason` (null: an ordinary kill, `process_killed`). */
  readonly reason: ErrorReason | null;
}

/** Filters and page of {@link ProcessStorage.list}, newest first. */
export interface ProcessStorageQuery {
  readonly state?: ProcessState;
  readonly exitState?: ExecutionExitState;
  readonly ref?: string;
  readonly keyId?: string;
  /** Only ids strictly below this one (the cursor). */
  readonly beforeId?: number;
  readonly limit: number;
}

/**
 * The storage port of the process manager. The core declares it so that it never depends on a
 * database library; `@cyrnel/store` implements it with Kysely. Writes are few by design
 * (insert, start, end): the hot path must stay cheap (a trivial run takes about a millisecond).
 */
export interface ProcessStorage extends ProcessQuotaStorage, ServiceStatsStorage {
  /** Insert a process and answer its new id (a positive integer, increasing). */
  insert(process: NewProcess): Promise<number>;
  /** The record, or undefined when unknown. */
  get(id: number): Promise<ProcessRecord | undefined>;
  /** The submitted code, or undefined when unknown. */
  code(id: number): Promise<string | undefined>;
  /** The stored results (empty before the first run ends), or undefined when unknown. */
  results(id: number): Promise<ProcessResults | undefined>;
  /** The tool calls of the last run, in call order. */
  calls(id: number): Promise<ToolCallRecord[]>;
  /** A page of records, newest first. */
  /** A page of records without `envConfig`, newest first (implementations need not even read it). */
  list(query: ProcessStorageQuery): Promise<ProcessSummary[]>;
  /** Persist a state change. */
  update(id: number, change: ProcessChange): Promise<void>;
  /**
   * Persist the end of a run atomically: the change, the results, and the tool calls not yet
   * stored as they end (each written over the row of its index, or appended when it has none).
   */
  finish(
    id: number,
    change: ProcessChange,
    results: ProcessResults,
    calls: readonly IndexedCall[],
  ): Promise<void>;
  /**
   * Append tool calls a run of `id` started, before their requests leave, and write `ended`, the
   * answers of earlier calls of the run (their rows written over): one statement for the batch.
   * Until their end is written (as `ended` of a later write) calls read back with `ok: null`: after a crash, that is how an
   * interrupted call shows.
   */
  openCalls(id: number, calls: readonly IndexedCall[], ended?: readonly IndexedCall[]): Promise<void>;
  /** What a running process wrote so far (the fields given), so a crash keeps it. */
  checkpoint(id: number, results: Partial<ProcessResults>): Promise<void>;
  /** Persist a re-run: the change, with results, metrics and tool calls cleared, atomically. */
  reset(id: number, change: ProcessChange): Promise<void>;
  /** Delete a process and its tool calls; false when unknown. */
  delete(id: number): Promise<boolean>;
  /**
   * Record every process left `queued`, `running`, `waiting` or `terminating` as `idle`/`failed` with
   * `error` (a host that stopped mid-run); answers how many were changed. With a `scope`, only
   * those of this host, of hosts whose heartbeat is stale or missing, and (with `unowned`) those
   * without an owner: never another live host's runs.
   */
  failInterrupted(
    error: string,
    at: string,
    errorReason: ErrorReason,
    scope?: InterruptedScope,
  ): Promise<number>;
  /**
   * Say that host `hostId` is alive at `at` (insert or update its row), with the
   * modules it has when given (kept as they were when absent).
   */
  heartbeat(hostId: string, at: string, modules?: Readonly<Record<string, string>>): Promise<void>;
  /** The hosts whose heartbeat is at or after `since`, by id. */
  hosts(since: string): Promise<HostRecord[]>;
  /**
   * Take up to `limit` queued processes no host owns, oldest first, for `hostId` at `at`: none
   * that needs a module of `lacking`, none another host is taking at the same time (PostgreSQL:
   * `FOR UPDATE SKIP LOCKED`). Each is taken by exactly one host.
   */
  claim(
    hostId: string,
    at: string,
    options: { readonly limit: number; readonly lacking: readonly string[] },
  ): Promise<ClaimedProcess[]>;
  /** How many queued processes no host owns (of `keyId` when given): the shared queue's length. */
  countUnclaimed(keyId?: string): Promise<number>;
  /**
   * Apply `change` to process `id` only while it is queued and no host owns it (a kill of work
   * still in the shared queue); false when a host took it first.
   */
  updateUnclaimed(id: number, change: ProcessChange): Promise<boolean>;
  /** Remove host `hostId` (a clean shutdown, once its runs are recorded). */
  removeHost(hostId: string): Promise<void>;
  /** The host that runs process `id` and its last heartbeat (null: none or unknown); undefined when `id` is unknown. */
  owner(
    id: number,
  ): Promise<{ readonly hostId: string | null; readonly heartbeatAt: string | null } | undefined>;
  /**
   * Ask the host that runs `id` to kill it (it looks with {@link ProcessStorage.takeKillRequests}),
   * for `reason` (`process_killed` when absent; `key_revoked` when its key was deleted).
   */
  requestKill(id: number, at: string, reason?: ErrorReason): Promise<void>;
  /** The unfinished processes of `hostId` a kill was asked for since the last look; clears the requests. */
  takeKillRequests(hostId: string): Promise<KillRequest[]>;
}
