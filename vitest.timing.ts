import { expect } from 'vitest';

/**
 * How many times its baseline a latency measured during an attack may reach. The timing tests
 * (`test/timing/` of a package, run alone by `vitest.timing.config.ts`) guard against attacks that
 * stall the event loop for seconds; a loaded machine slows the quiet baseline and the attack
 * alike, so the bound grows with the baseline instead of failing because the machine was busy.
 */
export const BASELINE_RATIO = 10;

/** A latency measured during an attack, the same measure taken just before it, and the floor. */
export interface TimingSample {
  /** The worst latency (ms) during the attack. */
  readonly attackMs: number;
  /** The worst latency (ms) of the same measure without the attack, in the same test. */
  readonly baselineMs: number;
  /**
   * The bound (ms) on a quiet machine: above what the attack honestly costs there, well below
   * the stall it guards against.
   */
  readonly floorMs: number;
}

/** The bound of a sample: `max(BASELINE_RATIO × baseline, floor)`. */
export function timingBound({ baselineMs, floorMs }: Omit<TimingSample, 'attackMs'>): number {
  return Math.max(BASELINE_RATIO * baselineMs, floorMs);
}

/**
 * Assert that the attack's worst latency stays within {@link timingBound}, printing the attack's
 * and the baseline's figures either way.
 *
 * @example
 * ```ts
 * expectWithinBaseline('/health during the fuzz', { attackMs: 41, baselineMs: 3.2, floorMs: 250 });
 * ```
 */
export function expectWithinBaseline(what: string, sample: TimingSample): void {
  const bound = timingBound(sample);
  const report =
    `${what}: worst ${sample.attackMs.toFixed(1)} ms during the attack, ${sample.baselineMs.toFixed(1)} ms ` +
    `without it; bound ${bound.toFixed(0)} ms = max(${BASELINE_RATIO} × baseline, ${sample.floorMs} ms)`;
  console.log(report);
  expect(sample.attackMs, report).toBeLessThanOrEqual(bound);
}
