import { performance } from 'node:perf_hooks';
import { type Stats, summarize } from './stats.ts';

/** How many times to run a measured operation. */
export interface MeasureOptions {
  readonly warmup: number;
  readonly reps: number;
}

/**
 * Runs `fn` sequentially `warmup` times unmeasured, then `reps` times measured, and
 * returns the wall-clock statistics in milliseconds. Sequential on purpose: latency,
 * not throughput, is what these numbers mean.
 */
export async function measure(fn: () => Promise<unknown>, options: MeasureOptions): Promise<Stats> {
  for (let i = 0; i < options.warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < options.reps; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}

/** Wall-clock milliseconds of one call of `fn`, with its result. */
export async function timeOnce<T>(fn: () => Promise<T>): Promise<{ readonly ms: number; readonly value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}
