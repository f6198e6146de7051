import { describe, expect, it } from 'vitest';
import { useServer } from './helpers';

const SLEEPER = 'while (true) await new Promise((resolve) => setTimeout(resolve, 1000));';

describe('sandbox scheduling and the timeout limit', () => {
  const { api, url } = useServer({ maxTimeoutMs: 120_000 });

  it('refuses a timeoutMs above --max-timeout-ms with 400 naming the limit', async () => {
    const refused = await api('POST', '/processes', { code: 'cyrnel.output({});', timeoutMs: 120_001 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_request' });
    expect(refused.body.error).toContain('at most 120000');
    const accepted = await api('POST', '/processes', { code: 'x', timeoutMs: 120_000, autorun: false });
    expect(accepted.status).toBe(201);
  });

  it('keeps /health and a trivial process prompt while more processes than the pool await', async () => {
    const attackers: number[] = [];
    for (let i = 0; i < 6; i++) {
      const sleeping = await api('POST', '/processes', { code: SLEEPER, timeoutMs: 120_000 });
      const hanging = await api('POST', '/processes', { code: 'await new Promise(() => {});' });
      attackers.push(sleeping.body.id as number, hanging.body.id as number);
    }
    try {
      // Every sleeper runs (none holds the queue) and every promise-only wait failed as a deadlock.
      const until = Date.now() + 10_000;
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

      const probe = Date.now();
      const health = await fetch(`${url()}/health`);
      expect(health.status).toBe(200);
      expect(Date.now() - probe).toBeLessThan(100);

      const started = Date.now();
      const trivial = await api('POST', '/processes', { code: 'cyrnel.output({ ok: true });', wait: true });
      expect(trivial.body).toMatchObject({ exitState: 'success', output: { ok: true } });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      for (const id of attackers) await api('POST', `/processes/${id}/signals/kill`);
    }
  });
});
