import { expect } from 'vitest';
import { expectWithinBaseline } from '../../../../vitest.timing';

/**
 * The floor of the bound on `/health` during an attack. The attacks these tests stop (catastrophic
 * backtracking, parsing millions of values, thousands of calls through the main thread) stall the
 * event loop for seconds. What they honestly cost on a 2-core machine shared by the test, the
 * server and its sandbox children reaches 300–600 ms once other work loads it (measured: the
 * refusal of three 6 MB bodies, 7,000 direct calls). Between the two.
 */
export const HEALTH_FLOOR_MS = 1_000;

/** How long the quiet baseline probes `/health` before the attack. */
const BASELINE_MS = 1_000;

/**
 * Probe `/health` back to back (5 ms apart) until `stop()`, which resolves with every probe's
 * latency: a stalled event loop shows as one slow probe. Latency counts from when the probe was
 * due, not from when it was sent: the test servers share the test's thread, so a stall that
 * begins while the prober sleeps delays the probe's start rather than its answer.
 */
export function probeHealth(url: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    let due = performance.now();
    while (running) {
      const response = await fetch(`${url}/health`);
      await response.text();
      latencies.push(performance.now() - due);
      due = performance.now() + 5;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/** The worst `/health` latency of the server at `url` over a second without any attack. */
export async function healthBaseline(url: string): Promise<number> {
  const probe = probeHealth(url);
  await new Promise((resolve) => setTimeout(resolve, BASELINE_MS));
  return Math.max(...(await probe.stop()));
}

/**
 * Measure `/health` of the server at `url` without an attack, then while `attack` runs, and
 * assert the attack's worst probe within the bound (`vitest.timing.ts`); answers what the attack
 * answered.
 */
export async function expectHealthDuring<T>(
  what: string,
  url: string,
  attack: () => Promise<T>,
  floorMs = HEALTH_FLOOR_MS,
): Promise<T> {
  const baselineMs = await healthBaseline(url);
  const probe = probeHealth(url);
  let latencies: number[] = [];
  let result: T;
  try {
    result = await attack();
  } finally {
    latencies = await probe.stop();
  }
  expect(latencies.length, `${what}: no probe answered`).toBeGreaterThan(0);
  expectWithinBaseline(`${what} (${latencies.length} probes)`, {
    attackMs: Math.max(...latencies),
    baselineMs,
    floorMs,
  });
  return result;
}
