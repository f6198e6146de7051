import { POSTGRES_TESTS } from '@cyrnel/store/testing';
import { describe, expect, it } from 'vitest';
import type { apiClient } from './helpers';
import { parsePrometheus, total } from './metrics-helpers';
import { useSharedHosts } from './shared-hosts';

const ADMIN = 'several-metrics-admin';
const HANGS = 'for (;;) {}';

describe.skipIf(!POSTGRES_TESTS.enabled)('metrics of two hosts sharing PostgreSQL', () => {
  const hosts = useSharedHosts('cyrnel_metrics', ADMIN);

  /** A host holding one run at most: a second is left in the shared queue. */
  const start = async (hostId: string) => (await hosts.start(hostId, { hostSlots: 1 })).api;
  const scrape = async (api: ReturnType<typeof apiClient>) =>
    parsePrometheus((await api('GET', '/metrics')).text);

  it("serves each host's own runs and the shared queue's depth on both", async () => {
    const a = await start('metrics-a');
    const b = await start('metrics-b');
    // A host that sees no other live host yet runs everything submitted to it: wait until each
    // has seen the other at a heartbeat.
    for (const api of [a, b])
      await expect
        .poll(async () => total(await scrape(api), 'cyrnel_peer_hosts'), { timeout: 30_000 })
        .toBe(1);
    // A run that ends on A is counted on A only.
    const done = await a('POST', '/processes', { code: 'cyrnel.output({ ok: true });', wait: true });
    expect(done.body.exitState).toBe('success');
    expect(total(await scrape(a), 'cyrnel_process_runs_total', { exit_state: 'success' })).toBe(1);
    expect(total(await scrape(b), 'cyrnel_process_runs_total', { exit_state: 'success' })).toBe(0);
    // Each host's one slot taken by a run of its own, then a third run waits in the shared queue.
    const ids: number[] = [];
    for (const api of [a, b])
      ids.push((await api('POST', '/processes', { code: HANGS, timeoutMs: 60_000 })).body.id);
    for (const api of [a, b]) {
      await expect
        .poll(async () => total(await scrape(api), 'cyrnel_processes', { state: 'running' }), {
          timeout: 30_000,
        })
        .toBe(1);
    }
    ids.push((await a('POST', '/processes', { code: HANGS, timeoutMs: 60_000 })).body.id);
    for (const api of [a, b]) {
      await expect
        .poll(async () => total(await scrape(api), 'cyrnel_queue_depth'), { timeout: 30_000 })
        .toBe(1);
      // Still one running each: the queued run is nobody's yet.
      expect(total(await scrape(api), 'cyrnel_processes', { state: 'running' })).toBe(1);
    }
    for (const id of ids) await a('POST', `/processes/${id}/signals/kill`);
    for (const api of [a, b]) {
      await expect
        .poll(async () => total(await scrape(api), 'cyrnel_queue_depth'), { timeout: 30_000 })
        .toBe(0);
      await expect
        .poll(async () => total(await scrape(api), 'cyrnel_processes', { state: 'running' }), {
          timeout: 30_000,
        })
        .toBe(0);
    }
    // Both hosts answer their own store calls: PostgreSQL's too are timed.
    expect(
      total(await scrape(b), 'cyrnel_store_query_seconds_count', { store: 'processes', operation: 'claim' }),
    ).toBeGreaterThan(0);
  });
});
