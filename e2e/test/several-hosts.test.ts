import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';

/** An upstream that counts how often each `n` was asked for, and can hold requests. */
async function startCounter(): Promise<{ url: string; counts: Map<number, number>; close(): Promise<void> }> {
  const counts = new Map<number, number>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const n = Number(url.searchParams.get('n'));
    counts.set(n, (counts.get(n) ?? 0) + 1);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ n }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const spec = (base: string) =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Counter', version: '1.0.0' },
    servers: [{ url: base }],
    paths: {
      '/count': {
        get: {
          operationId: 'count',
          parameters: [{ name: 'n', in: 'query', required: true, schema: { type: 'integer' } }],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  });

const HANGS = `console.log('started'); await new Promise((resolve) => setTimeout(resolve, 120_000));`;

describe.skipIf(!POSTGRES_TESTS.enabled)('three hosts on one PostgreSQL database', () => {
  let database: FreshDatabase;
  let work: string;
  let counter: Awaited<ReturnType<typeof startCounter>>;
  const hosts: CyrnelServer[] = [];

  beforeAll(async () => {
    database = await freshPostgresDatabase('cyrnel_m');
    const env = { CYRNEL_DATABASE_URL: database.url, CYRNEL_SECRETS_KEY: randomBytes(32).toString('base64') };
    work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-hosts-'));
    counter = await startCounter();
    // Started one after the other: the first runs the migrations, the others find them done.
    // A holds two runs at most: what is submitted to it beyond waits in the shared queue.
    for (const host of ['a', 'b', 'c'])
      hosts.push(
        await startCyrnel(join(work, host), {
          ...env,
          CYRNEL_HOST_ID: `host-${host}`,
          ...(host === 'a' ? { CYRNEL_HOST_SLOTS: '2' } : {}),
        }),
      );
  }, 120_000);
  afterAll(async () => {
    for (const host of hosts) await host.program.stop().catch(() => undefined);
    await counter?.close();
    await database?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('enables a service on host A that host C can call within 2 s', async () => {
    const [a, , c] = hosts as [CyrnelServer, CyrnelServer, CyrnelServer];
    await a.client.services.install({ id: 'counter', adapter: 'openapi', definition: spec(counter.url) });
    const enabledAt = Date.now();
    await a.client.services.setEnabled('counter', true);
    let seen = false;
    while (!seen && Date.now() - enabledAt < 2_000) {
      const run = await c.client.processes.create({
        code: 'cyrnel.output(await cyrnel.services.counter.tools.count.invoke({ query: { n: -1 } }))',
        wait: true,
      });
      seen = run.exitState === 'success';
      if (!seen) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toBe(true);
  });

  it('runs 300 processes submitted round-robin exactly once each, on all three hosts', async () => {
    const runs = await Promise.all(
      Array.from({ length: 300 }, async (_, n) => {
        const host = hosts[n % 3] as CyrnelServer;
        const run = await host.client.processes.create({
          code: `cyrnel.output(await cyrnel.services.counter.tools.count.invoke({ query: { n: ${n} } }))`,
          wait: true,
        });
        expect(run.exitState, `${run.errorReason}: ${run.error}`).toBe('success');
        return { id: run.id, submittedTo: `host-${'abc'[n % 3]}`, ranOn: run.hostId };
      }),
    );
    const ids = runs.map((run) => run.id);
    expect(new Set(ids).size).toBe(300);
    // All three hosts took work; A (two slots) left most of its share to the others.
    expect(new Set(runs.map((run) => run.ranOn))).toEqual(new Set(['host-a', 'host-b', 'host-c']));
    const movedFromA = runs.filter((run) => run.submittedTo === 'host-a' && run.ranOn !== 'host-a');
    expect(movedFromA.length).toBeGreaterThan(0);
    for (let n = 0; n < 300; n++) expect(counter.counts.get(n)).toBe(1);
    // Every host sees the results of the runs of the others.
    for (const [index, id] of ids.entries()) {
      if (index % 50 !== 0) continue;
      const reader = hosts[(index + 1) % 3] as CyrnelServer;
      expect(await reader.client.processes.get(id)).toMatchObject({ state: 'idle', exitState: 'success' });
    }
  });

  it('follows the events of a run on another host, and kills a run from another host', async () => {
    const [a, b, c] = hosts as [CyrnelServer, CyrnelServer, CyrnelServer];
    const { id } = await a.client.processes.create({
      code: "console.log('hello'); await new Promise((resolve) => setTimeout(resolve, 500)); cyrnel.output({ done: 1 });",
    });
    const seen: string[] = [];
    let stateAtStdout: string | undefined;
    for await (const event of c.client.processes.events(id)) {
      seen.push(event.type);
      // Streamed from A while it runs, not replayed from the store at the end.
      if (event.type === 'stdout') stateAtStdout = (await a.client.processes.get(id)).state;
      if (event.type === 'exit') {
        expect(event.data).toMatchObject({ exitState: 'success' });
        break;
      }
    }
    expect(seen).toContain('stdout');
    expect(seen).toContain('output');
    expect(stateAtStdout).toBe('running');
    const hanging = await a.client.processes.create({ code: HANGS, timeoutMs: 120_000 });
    for await (const event of a.client.processes.events(hanging.id)) if (event.type === 'stdout') break;
    await b.client.processes.kill(hanging.id);
    let record = await a.client.processes.get(hanging.id);
    const asked = Date.now();
    while (record.state !== 'idle' && Date.now() - asked < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = await a.client.processes.get(hanging.id);
    }
    expect(record).toMatchObject({ state: 'idle', exitState: 'canceled', errorReason: 'process_killed' });
  });

  it('marks the runs of a host killed mid-run as failed within the lease, and the others go on', async () => {
    const [a, b, c] = hosts as [CyrnelServer, CyrnelServer, CyrnelServer];
    const started = async (host: CyrnelServer) => {
      const { id } = await host.client.processes.create({ code: HANGS, timeoutMs: 120_000 });
      for await (const event of host.client.processes.events(id)) if (event.type === 'stdout') break;
      return id;
    };
    const onB = await started(b);
    const onC = await started(c);
    await b.program.stop('SIGKILL');
    // The lease is 10 s, heartbeats every 2 s: A or C records B's run as interrupted.
    const killedAt = Date.now();
    let record = await a.client.processes.get(onB);
    while (record.state !== 'idle' && Date.now() - killedAt < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      record = await a.client.processes.get(onB);
    }
    expect(record).toMatchObject({ state: 'idle', exitState: 'failed', errorReason: 'process_interrupted' });
    // C's run is untouched by it, and C still takes new work.
    expect((await c.client.processes.get(onC)).state).not.toBe('idle');
    const more = await c.client.processes.create({ code: 'cyrnel.output({ ok: true })', wait: true });
    expect(more).toMatchObject({ exitState: 'success', output: { ok: true } });
    await c.client.processes.kill(onC);
  });
});
