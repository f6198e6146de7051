import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';

const ITEMS = 5;

/** An upstream on 127.0.0.1: `GET /items/:n` answers at once, `GET /hang` never; it logs every request. */
interface Upstream {
  readonly url: string;
  readonly requests: string[];
  /** Resolves once a request for `path` arrived. */
  arrived(path: string): Promise<void>;
  close(): Promise<void>;
}

async function startUpstream(): Promise<Upstream> {
  const requests: string[] = [];
  const waiters: { path: string; resolve(): void }[] = [];
  const held: ServerResponse[] = [];
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    requests.push(path);
    for (const waiter of waiters.filter((candidate) => candidate.path === path)) waiter.resolve();
    if (path === '/hang') {
      held.push(response);
      return;
    }
    const item = /^\/items\/(\d+)$/.exec(path);
    response
      .writeHead(item ? 200 : 404, { 'content-type': 'application/json' })
      .end(JSON.stringify(item ? { n: Number(item[1]) } : { message: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    arrived: (path) =>
      requests.includes(path) ? Promise.resolve() : new Promise((resolve) => waiters.push({ path, resolve })),
    close: () =>
      new Promise((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Upstream', version: '1.0.0' },
  servers: [{ url: 'http://127.0.0.1:9' }],
  paths: {
    '/items/{n}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'n', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'the item' } },
      },
    },
    '/hang': { get: { operationId: 'hang', responses: { '200': { description: 'never' } } } },
  },
};

/** Calls the upstream ITEMS times, writing as it goes, then waits on a call that never answers. */
const PROGRAM = `
  for (let n = 0; n < ${ITEMS}; n++) {
    const item = await cyrnel.services.up.tools.getItem.invoke({ path: { n } });
    console.log('got', item.body.n);
    cyrnel.output({ ['item' + n]: item.body.n });
  }
  console.log('hanging');
  await cyrnel.services.up.tools.hang.invoke({});
`;

/**
 * The suite for one call path: gated calls (through the host, which records a call's start before
 * its request leaves) or direct calls (the egress gateway's workers: a run's later calls of a tool
 * the policies allowed are journaled by the worker and recorded by the main thread after they left).
 */
function crashAudit(path: 'gated' | 'direct', env: Record<string, string>) {
  let work: string;
  let upstream: Upstream;
  let cyrnel: CyrnelServer | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-crash-audit-'));
    upstream = await startUpstream();
    cyrnel = await startCyrnel(join(work, 'data'), env);
    await cyrnel.client.services.install({
      id: 'up',
      adapter: 'openapi',
      definition: JSON.stringify(SPEC),
      config: { baseUrl: upstream.url, timeoutMs: 120_000 },
      enabled: true,
    });
  });

  afterAll(async () => {
    await cyrnel?.program.stop('SIGKILL');
    await upstream?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** Poll the server's SQLite file (read beside the running server) until `done` holds. */
  async function stored<T>(read: (db: DatabaseSync) => T, done: (value: T) => boolean): Promise<T> {
    const db = new DatabaseSync(join(work, 'data', 'data.db'), { readOnly: true });
    try {
      for (;;) {
        const value = read(db);
        if (done(value)) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      db.close();
    }
  }

  describe(`the audit of a run a crash interrupts (${path} calls)`, () => {
    it('lists every call that reached the upstream after a SIGKILL (the one in flight with ok null), and keeps stdout and output', async () => {
      const { client } = cyrnel as CyrnelServer;
      const { id } = await client.processes.create({ code: PROGRAM, timeoutMs: 120_000 });
      await upstream.arrived('/hang');
      // What the program wrote reaches the store within the checkpoint interval (a second): the
      // host is killed once it is there, as a crash at any later moment would find it.
      await stored(
        (db) => db.prepare('select stdout from processes where id = ?').get(id) as { stdout: string },
        (row) => row.stdout.includes('hanging'),
      );

      expect(await cyrnel?.program.stop('SIGKILL')).toBe('SIGKILL');
      // A worker's journal line the main thread had not stored when the host died (a request that
      // left in the last milliseconds): the next start records it.
      const journal = join(work, 'data', 'data.db.call-journal');
      const leftover = Date.UTC(2026, 0, 1);
      if (path === 'direct') {
        expect(await readdir(journal)).toEqual(
          expect.arrayContaining([expect.stringMatching(/^w\d+-\d+\.jsonl$/)]),
        );
        const line = { q: 1_000_000, p: id, s: 'up', t: 'getItem', at: leftover, id: 1_000_000 };
        await writeFile(join(journal, 'w0-999.jsonl'), `${JSON.stringify(line)}\n`, { flag: 'a' });
      }
      cyrnel = await startCyrnel(join(work, 'data'), env);

      const after = cyrnel.client;
      expect(await after.processes.get(id)).toMatchObject({
        state: 'idle',
        exitState: 'failed',
        errorReason: 'process_interrupted',
      });
      const calls = (await after.processes.calls(id)).items;
      // Every request the upstream saw is listed, in order; the one in flight as interrupted.
      expect(upstream.requests).toEqual([...Array.from({ length: ITEMS }, (_, n) => `/items/${n}`), '/hang']);
      const leftovers = path === 'direct' ? ['getItem'] : [];
      expect(calls.map((call) => call.toolId)).toEqual([
        ...Array(ITEMS).fill('getItem'),
        'hang',
        ...leftovers,
      ]);
      if (path === 'direct') {
        expect(calls[ITEMS + 1]).toMatchObject({ ok: null, startedAt: new Date(leftover).toISOString() });
        expect(await readdir(journal)).toEqual([]);
      }
      for (const call of calls.slice(0, ITEMS)) {
        expect(call).toMatchObject({ serviceId: 'up', ok: true, errorCode: null, errorReason: null });
      }
      expect(calls[ITEMS]).toMatchObject({ serviceId: 'up', toolId: 'hang', ok: null, errorCode: null });
      expect(await after.processes.stdout(id)).toBe(
        `${Array.from({ length: ITEMS }, (_, n) => `got ${n}\n`).join('')}hanging\n`,
      );
      expect(await after.processes.output(id)).toEqual(
        Object.fromEntries(Array.from({ length: ITEMS }, (_, n) => [`item${n}`, n])),
      );
    });
  });
}

crashAudit('gated', { CYRNEL_NO_DIRECT_TOOL_CALLS: 'true' });
crashAudit('direct', {});
