/**
 * What one run of a process cost and what it kept out of the model's context: the efficiency
 * meter of code mode. Null on a record until its run ends (and for runs stored by an older
 * server, or ended by a host that stopped under them).
 *
 * @example
 * ```json
 * { "toolCalls": 12, "toolResultBytes": 2202009, "returnedBytes": 1331, "wallMs": 843.2, "cpuMs": 61.7 }
 * ```
 */
export interface ProcessMetrics {
  /** Tool calls the run made (each call recorded, answered or not). */
  toolCalls: number;
  /**
   * Bytes of the tool answers delivered into the sandbox: the UTF-8 length of each answer's JSON
   * text, counted by the host where the answer passes (never taken from the sandbox). A failed
   * call delivers no answer and counts 0.
   */
  toolResultBytes: number;
  /**
   * Bytes the run hands back to the model: the UTF-8 length of its output's JSON text, its stdout
   * and its stderr, as stored (caps and truncation markers included). Stderr counts because the
   * MCP tools put it in the same text the model reads as stdout.
   */
  returnedBytes: number;
  /** Milliseconds from the start of the run to its end, on the host's clock (waiting for approvals included). */
  wallMs: number;
  /**
   * Milliseconds of CPU the sandbox reports it spent running the code (`typescript-ivm`: the
   * isolate's CPU time): the environment's claim, never above `wallMs`. Null when the environment
   * reports none (a sandbox that crashed, an environment that does not measure it).
   */
  cpuMs: number | null;
}

/**
 * `GET /services/:serviceId/stats`: the efficiency meter summed over the ended runs still stored
 * (retention prunes old ones) that called the service at least once. Calls and their bytes are
 * this service's own; what a run returned and its times count whole for every service it called.
 *
 * @example
 * ```json
 * { "serviceId": "shop", "runs": 3, "toolCalls": 6, "toolResultBytes": 1416, "returnedBytes": 171,
 *   "wallMs": 95.4, "cpuMs": 12.9, "ratio": 8.28, "firstRunAt": "2026-01-05T10:00:00.000Z",
 *   "lastRunAt": "2026-01-05T10:04:12.000Z" }
 * ```
 */
export interface ServiceStats {
  serviceId: string;
  /** Ended runs that called the service and recorded metrics. */
  runs: number;
  /** Calls of the service's tools in those runs. */
  toolCalls: number;
  /** Bytes those calls' answers brought into the sandboxes. */
  toolResultBytes: number;
  /** Bytes those runs returned to the model (output, stdout, stderr). */
  returnedBytes: number;
  /** Their wall time, summed. */
  wallMs: number;
  /** Their CPU time as the sandboxes reported it, summed; null when none reported any. */
  cpuMs: number | null;
  /** `toolResultBytes / returnedBytes` ({@link efficiencyRatio}); null when either is 0. */
  ratio: number | null;
  /** When the earliest of those runs started (the window the stats cover), or null without runs. */
  firstRunAt: string | null;
  /** When the latest of those runs ended, or null without runs. */
  lastRunAt: string | null;
}

/**
 * How many bytes of tool answers stayed in the sandbox per byte returned to the model, rounded
 * to two decimals: above 1 the code kept data out of the model's context (10 and more: most of
 * it); about 1 it passed on what it read; below 1 it returned more than it read. Null when
 * nothing was read or nothing returned (nothing to compare).
 *
 * @example
 * ```ts
 * efficiencyRatio({ toolResultBytes: 2_202_009, returnedBytes: 1_331 }); // 1654.4
 * ```
 */
export function efficiencyRatio(
  metrics: Pick<ProcessMetrics, 'toolResultBytes' | 'returnedBytes'>,
): number | null {
  const { toolResultBytes: read, returnedBytes: returned } = metrics;
  if (!(read > 0) || !(returned > 0)) return null;
  return Math.round((read / returned) * 100) / 100;
}

/**
 * Bytes for people: `980 B`, `1.3 KB`, `2.1 MB`, `4.0 GB` (powers of 1000, one decimal).
 *
 * @example
 * ```ts
 * formatBytes(1331); // '1.3 KB'
 * ```
 */
export function formatBytes(bytes: number): string {
  const value = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  if (value < 1000) return `${Math.round(value)} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let scaled = value / 1000;
  let unit = 0;
  // 999.96 KB would print as "1000.0 KB": step up a unit at the rounding edge.
  while (scaled >= 999.95 && unit < units.length - 1) {
    scaled /= 1000;
    unit++;
  }
  return `${scaled.toFixed(1)} ${units[unit]}`;
}

/**
 * One sentence on a run's metrics, for people and models: what it read from tools, what it
 * returned, and the ratio.
 *
 * @example
 * ```ts
 * efficiencySummary({ toolCalls: 12, toolResultBytes: 2_100_000, returnedBytes: 1_300, wallMs: 840, cpuMs: 60 });
 * // 'this run read 2.1 MB from tools in 12 calls and returned 1.3 KB to the model (1615.38× less)'
 * ```
 */
export function efficiencySummary(metrics: ProcessMetrics): string {
  const calls = `${metrics.toolCalls} call${metrics.toolCalls === 1 ? '' : 's'}`;
  const read = `this run read ${formatBytes(metrics.toolResultBytes)} from tools in ${calls}`;
  const returned = `returned ${formatBytes(metrics.returnedBytes)} to the model`;
  const ratio = efficiencyRatio(metrics);
  if (ratio === null) return `${read} and ${returned}`;
  const comparison = ratio >= 1 ? `${ratio}× less` : `${Math.round((1 / ratio) * 100) / 100}× more`;
  return `${read} and ${returned} (${comparison})`;
}
