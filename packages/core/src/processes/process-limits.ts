import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';

/** Size and count limits of the process manager. */
export interface ProcessLimits {
  /** Largest accepted code, in UTF-8 bytes. */
  readonly maxCodeBytes: number;
  /** Stdout kept per process, in UTF-8 bytes; the rest is dropped behind a marker. */
  readonly maxStdoutBytes: number;
  /** Stderr kept per process, in UTF-8 bytes; the rest is dropped behind a marker. */
  readonly maxStderrBytes: number;
  /** Largest merged output, in bytes of its JSON text. */
  readonly maxOutputBytes: number;
  /**
   * Largest `envConfig`, in UTF-8 bytes of its JSON (413 beyond). It is stored with the process
   * and returned by `GET /processes/:id`, so it must stay small.
   */
  readonly maxEnvConfigBytes: number;
  /** Most processes queued, running or terminating at once. */
  readonly maxLiveProcesses: number;
  /** Most live processes one stored API key may have at once (processes without a key: only the global bound). */
  readonly maxLiveProcessesPerKey: number;
  /** `timeoutMs` of a process created without one (absent or null; at most `maxTimeoutMs`). */
  readonly defaultTimeoutMs: number;
  /**
   * Largest `timeoutMs` a create request may ask for (400 beyond). A run holds its environment's
   * resources until its deadline, so a client must not be able to ask for weeks; at most
   * `MAX_TIMER_DELAY_MS` (the longest delay a Node timer honours).
   */
  readonly maxTimeoutMs: number;
  /** How long a killed execution may take to return before the host records it anyway. */
  readonly killGraceMs: number;
  /**
   * The backstop for an environment that reports `queued` and then stalls: a run still queued
   * past its own `timeoutMs` plus this is ended with `timeout` once its environment has run
   * nothing (no run of it running, started or ended) for this long. A busy pool never trips it.
   */
  readonly queueStallMs: number;
  /**
   * Bytes the process records of one stored API key may hold (code, envConfig, output, stdout,
   * stderr, tool calls: `storedProcessBytes`) before its creates and re-runs are refused with 429
   * `storage_quota_exceeded`; 0: no bound. Runs already going may end a little past it.
   */
  readonly maxStoredBytesPerKey: number;
  /** Idle processes last changed longer ago than this are pruned (their calls too); 0: kept forever. */
  readonly retentionMs: number;
  /** Idle processes of a stored key beyond its newest this many are pruned; 0: no bound. */
  readonly retentionPerKey: number;
  /** Processes one pruning step deletes before it lets the event loop turn. */
  readonly retentionBatch: number;
}

/** The limits a host applies where its options leave one out (the server's flags default to them). */
export const DEFAULT_PROCESS_LIMITS: ProcessLimits = Object.freeze({
  maxCodeBytes: 100 * 1024,
  maxStdoutBytes: 1024 * 1024,
  maxStderrBytes: 1024 * 1024,
  maxOutputBytes: 4 * 1024 * 1024,
  maxEnvConfigBytes: 64 * 1024,
  maxLiveProcesses: 1000,
  maxLiveProcessesPerKey: 100,
  defaultTimeoutMs: 30_000,
  maxTimeoutMs: 300_000,
  killGraceMs: 2_000,
  queueStallMs: 60_000,
  maxStoredBytesPerKey: 256 * 1024 * 1024,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  retentionPerKey: 10_000,
  retentionBatch: 100,
});

/**
 * Runs one host holds at once (queued with its environment or running) before it leaves new work
 * in the shared queue for another host, where the host options give no `slots`.
 */
export const DEFAULT_HOST_SLOTS = 32;

/**
 * `limits` over the defaults, made consistent: `maxTimeoutMs` within what a timer holds, and the
 * default timeout never above the maximum (an operator lowering the maximum lowers it too).
 */
export function resolveProcessLimits(limits: Partial<ProcessLimits> = {}): ProcessLimits {
  const merged = { ...DEFAULT_PROCESS_LIMITS, ...limits };
  const maxTimeoutMs = Math.min(Math.max(1, merged.maxTimeoutMs), MAX_TIMER_DELAY_MS);
  return { ...merged, maxTimeoutMs, defaultTimeoutMs: Math.min(merged.defaultTimeoutMs, maxTimeoutMs) };
}
