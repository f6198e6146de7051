import type { ExecutionUsage } from '@cyrnel/sdk';
import type { ProcessMetrics } from '@cyrnel/sdk/api';

/** What {@link measureRun} reads of a run (a `LiveProcess`). */
export interface MeteredRun {
  readonly calls: readonly { readonly resultBytes: number | null }[];
  readonly output: { bytes(): number };
  readonly stdout: { bytes(): number };
  readonly stderr: { bytes(): number };
  /** `performance.now()` when it started running; undefined when it never ran. */
  readonly runningAt: number | undefined;
  /** The CPU time its environment reported (`reportUsage`), unchecked against the wall time yet. */
  readonly cpuClaimMs: number | undefined;
}

/** Milliseconds to the microsecond: a trivial run takes well under one. */
const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

/**
 * The metrics of a run that ends at `endedAt` (`performance.now()`): its calls and their answers'
 * bytes (counted by the host as each answer passed), the bytes it returns (output JSON, stdout,
 * stderr as kept), its wall time on the host's clock, and the CPU time its environment claimed,
 * never above that wall time.
 *
 * @example
 * ```ts
 * const metrics = measureRun(run, performance.now()); // { toolCalls: 2, toolResultBytes: 708, ... }
 * ```
 */
export function measureRun(run: MeteredRun, endedAt: number): ProcessMetrics {
  let toolResultBytes = 0;
  for (const call of run.calls) toolResultBytes += call.resultBytes ?? 0;
  const wallMs = run.runningAt === undefined ? 0 : roundMs(Math.max(0, endedAt - run.runningAt));
  const claim = run.cpuClaimMs;
  return {
    toolCalls: run.calls.length,
    toolResultBytes,
    returnedBytes: run.output.bytes() + run.stdout.bytes() + run.stderr.bytes(),
    wallMs,
    cpuMs: claim === undefined ? null : Math.min(roundMs(claim), wallMs),
  };
}

/**
 * The CPU time of an environment's usage report, or undefined when the report is not a finite,
 * non-negative number (environments and their sandboxes are not trusted to report sanely).
 *
 * @example
 * ```ts
 * claimedCpuMs({ cpuMs: 3.5 }); // 3.5
 * claimedCpuMs({ cpuMs: -1 }); // undefined
 * ```
 */
export function claimedCpuMs(usage: ExecutionUsage | undefined): number | undefined {
  const cpuMs = (usage as { cpuMs?: unknown } | undefined)?.cpuMs;
  return typeof cpuMs === 'number' && Number.isFinite(cpuMs) && cpuMs >= 0 ? cpuMs : undefined;
}
