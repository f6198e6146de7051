import { describe, expect, it } from 'vitest';
import { expectWithinBaseline } from '../../../../vitest.timing';
import { useServer } from '../helpers';
import { healthBaseline } from './health-probe';

const SLEEPER = 'while (true) await new Promise((resolve) => setTimeout(resolve, 1000));';
const TRIVIAL = 'cyrnel.output({ ok: true });';

/** The floor of one `/health` answer while the sandboxes are all taken: nothing waits on them. */
const HEALTH_FLOOR_MS = 250;
/** The floor of a trivial run behind them: it must not queue for the sleepers' two minutes. */
const TRIVIAL_FLOOR_MS = 2_000;

describe('sandbox scheduling with more processes than the pool', () => {
  const { api, url } = useServer({ maxTimeoutMs: 120_000 });

  /** How long a trivial process takes, `wait: true`, and that it succeeded. */
  const trivialRun = async () => {
    const started = performance.now();
    const run = await api('POST', '/processes', { code: TRIVIAL, wait: true });
    expect(run.body).toMatchObject({ exitState: 'success', output: { ok: true } });
    return performance.now() - started;
  };

  it('keeps /health and a trivial process prompt while more processes than the pool await', async () => {
    // The baselines: /health, and a trivial run once the pool has started its first sandbox.
    const healthMs = await healthBaseline(url());
    await trivialRun();
    const trivialMs = await trivialRun();

    const attackers: number[] = [];
    for (let i = 0; i < 6; i++) {
      const sleeping = await api('POST', '/processes', { code: SLEEPER, timeoutMs: 120_000 });
      const hanging = await api('POST', '/processes', { code: 'await new Promise(() => {});' });
      attackers.push(sleeping.body.id as number, hanging.body.id as number);
    }
    try {
      // Every sleeper runs (none holds the queue) and every promise-only wait failed as a deadlock.
      // Generous: settling is not what is measured, and a loaded machine settles slowly.
      const until = Date.now() + 30_000;
      let states: { state: string; exitState: string | null; error: string | null }[] = [];
      while (Date.now() < until) {
        states = await Promise.all(attackers.map(async (id) => (await api('GET', `/processes/${id}`)).body));
        // Sleepers (even positions) run; a promise-only wait is ended once its sandbox finds it idle.
        if (states.every((p, i) => p.state === (i % 2 === 0 ? 'running' : 'idle'))) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(states.filter((_, i) => i % 2 === 0).map((p) => p.state)).toEqual(Array(6).fill('running'));
      for (const hung of states.filter((_, i) => i % 2 === 1)) {
        expect(hung).toMatchObject({ state: 'idle', exitState: 'failed' });
        expect(hung.error).toMatch(/waiting for a promise that nothing can settle/);
      }

      const probe = performance.now();
      const health = await fetch(`${url()}/health`);
      expect(health.status).toBe(200);
      expectWithinBaseline('/health while six sleepers hold the sandboxes', {
        attackMs: performance.now() - probe,
        baselineMs: healthMs,
        floorMs: HEALTH_FLOOR_MS,
      });
      expectWithinBaseline('a trivial process behind six sleepers', {
        attackMs: await trivialRun(),
        baselineMs: trivialMs,
        floorMs: TRIVIAL_FLOOR_MS,
      });
    } finally {
      for (const id of attackers) await api('POST', `/processes/${id}/signals/kill`);
    }
  });
});
