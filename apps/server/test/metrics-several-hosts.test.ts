import { randomBytes } from 'node:crypto';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, startTestServer, tempDir } from './helpers';
import { parsePrometheus, total } from './metrics-helpers';

const ADMIN = 'several-metrics-admin';
const HANGS = 'for (;;) {}';

describe.skipIf(!POSTGRES_TESTS.enabled)('metrics of two hosts sharing PostgreSQL', () => {
  let database: FreshDatabase;
  const dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
  const servers: RunningServer[] = [];
  const secretsKey = randomBytes(32).toString('base64');

  /** A host holding one run at most: a second is left in the shared queue. */
  const start = async (hostId: string) => {
    const dir = await tempDir();
    dirs.push(dir);
    const server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: ADMIN,
      secretsKey,
      hostId,
      hostSlots: 1,
      database: { kind: 'postgres', url: database.url },
    });
    servers.push(server);
    return apiClient(server.url, ADMIN);
  };
  const scrape = async (api: ReturnType<typeof apiClient>) =>
    parsePrometheus((await api('GET', '/metrics')).text);

  beforeAll(async () => {
    database = await freshPostgresDatabase('cyrnel_metrics');
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const dir of dirs) await dir.remove();
    await database?.drop();
  });

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
