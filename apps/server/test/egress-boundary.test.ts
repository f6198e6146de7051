import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from './helpers';
import { useServer } from './helpers';
import { sandboxChildren } from './sandbox-children';

// Distinctive credentials: each must reach the upstream and never be found in a sandbox process.
const HEADER_SECRET = 'hdr-5ecret-7f3a9c1e-egress-boundary';
const QUERY_SECRET = 'qry-5ecret-2b8d4f6a-egress-boundary';

/** An upstream that needs both keys: a header and a query parameter. */
function keyedSpec(baseUrl: string): Record<string, unknown> {
  const get = (operationId: string, parameters: unknown[] = []) => ({
    get: { operationId, parameters, responses: { '200': { description: 'ok' } } },
  });
  return {
    openapi: '3.0.3',
    info: { title: 'Keyed', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        headerKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
      },
    },
    security: [{ headerKey: [], queryKey: [] }],
    paths: {
      '/users/{id}': get('getUser', [
        { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
      ]),
      '/echo': get('echo'),
      '/big': get('big'),
      '/deep': get('deep'),
      '/wide': get('wide'),
    },
  };
}

/**
 * How often each needle occurs in the readable memory of process `pid` (every readable mapping
 * of /proc/<pid>/maps, read from /proc/<pid>/mem), as Latin-1 and as UTF-16 (V8 keeps strings in
 * either).
 */
function scanMemory(pid: number, needles: readonly string[]): Map<string, number> {
  const patterns = needles.flatMap((needle) => [
    { needle, bytes: Buffer.from(needle, 'latin1') },
    { needle, bytes: Buffer.from(needle, 'utf16le') },
  ]);
  const found = new Map<string, number>(needles.map((needle) => [needle, 0]));
  const overlap = Math.max(...patterns.map((pattern) => pattern.bytes.length));
  const fd = openSync(`/proc/${pid}/mem`, 'r');
  try {
    for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
      const [range, perms, , , , name] = line.split(/\s+/);
      if (!range || !perms?.startsWith('r') || name === '[vvar]' || name === '[vsyscall]') continue;
      const [from, to] = range.split('-').map((hex) => Number.parseInt(hex, 16)) as [number, number];
      const chunk = Buffer.alloc(16 << 20);
      let carry = Buffer.alloc(0);
      for (let at = from; at < to; at += chunk.length) {
        let read: number;
        try {
          read = readSync(fd, chunk, 0, Math.min(chunk.length, to - at), at);
        } catch {
          break;
        }
        const window = Buffer.concat([carry, chunk.subarray(0, read)]);
        for (const { needle, bytes } of patterns) {
          for (let hit = window.indexOf(bytes); hit >= 0; hit = window.indexOf(bytes, hit + 1))
            found.set(needle, (found.get(needle) ?? 0) + 1);
        }
        carry = Buffer.from(window.subarray(Math.max(0, window.length - overlap + 1)));
      }
    }
  } finally {
    closeSync(fd);
  }
  return found;
}

describe('the egress boundary: sandbox processes hold no credential, oversized answers fail one call', () => {
  const { api } = useServer({ allowPrivateUrls: true, egressAnswerBytes: 4_000_000 });
  let upstream: Server;
  const seen: { headerKey: string | undefined; queryKey: string | null }[] = [];
  // More elements than the gateway's budget (1,000,000), in fewer bytes than its byte budget.
  const wide = `[${'0,'.repeat(1_200_000)}0]`;

  const run = async (code: string) => {
    const created = await api('POST', '/processes', { code, wait: true, timeoutMs: 30_000 });
    expect(created.status).toBe(201);
    const calls = await api('GET', `/processes/${created.body.id}/calls?limit=100`);
    return { process: created.body, calls: calls.body.items as Json[] };
  };

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const headerKey = request.headers['x-api-key'];
      seen.push({
        headerKey: typeof headerKey === 'string' ? headerKey : undefined,
        queryKey: url.searchParams.get('api_key'),
      });
      const send = (text: string) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(text);
      if (headerKey !== HEADER_SECRET || url.searchParams.get('api_key') !== QUERY_SECRET)
        return void response
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"message":"bad key"}');
      // A debugging endpoint that echoes what it received, credentials included.
      if (url.pathname === '/echo') return send(JSON.stringify({ headerKey, url: request.url }));
      if (url.pathname === '/big') return send(JSON.stringify({ text: 'x'.repeat(5_000_000) }));
      if (url.pathname === '/deep') return send(`${'{"v":'.repeat(200)}1${'}'.repeat(200)}`);
      if (url.pathname === '/wide') return send(wide);
      const user = /^\/users\/(\d+)$/.exec(url.pathname);
      send(JSON.stringify({ id: Number(user?.[1] ?? 0) }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const installed = await api('POST', '/services', {
      id: 'keyed',
      adapter: 'openapi',
      definition: JSON.stringify(keyedSpec(base)),
      secrets: { headerKey: HEADER_SECRET, queryKey: QUERY_SECRET },
      enabled: true,
    });
    expect(installed.status).toBe(201);
    // One sandbox process: the oversized answers and the runs after them share it.
    const patched = await api('PATCH', '/modules/typescript-ivm/config', [
      { op: 'add', path: '/poolSize', value: 1 },
    ]);
    expect(patched.status).toBe(200);
  });
  afterAll(async () => {
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('sends both keys upstream while no sandbox process ever holds either', async () => {
    seen.length = 0;
    const { process: done, calls } = await run(`
      const users = [];
      for (let id = 1; id <= 6; id++) users.push((await cyrnel.services.keyed.tools.getUser.invoke({ path: { id } })).body.id);
      users.push(...(await Promise.all([7, 8, 9].map(async (id) => (await cyrnel.services.keyed.tools.getUser.invoke({ path: { id } })).body.id))));
      cyrnel.output({ users });`);
    expect(done).toMatchObject({ exitState: 'success', output: { users: [1, 2, 3, 4, 5, 6, 7, 8, 9] } });
    expect(calls).toHaveLength(9);
    expect(seen).toHaveLength(9);
    for (const request of seen) expect(request).toEqual({ headerKey: HEADER_SECRET, queryKey: QUERY_SECRET });

    const children = sandboxChildren();
    expect(children.length).toBeGreaterThan(0);
    for (const pid of children) {
      // The scan finds what a child does hold: its runtime's source, compiled into every isolate.
      const found = scanMemory(pid, [HEADER_SECRET, QUERY_SECRET, '__cyrnelAsync']);
      expect(found.get('__cyrnelAsync'), `pid ${pid}`).toBeGreaterThan(0);
      expect(found.get(HEADER_SECRET), `pid ${pid}`).toBe(0);
      expect(found.get(QUERY_SECRET), `pid ${pid}`).toBe(0);
    }
  });

  it('hands the code an upstream answer that echoes the credentials with each one masked', async () => {
    const { process: done } = await run(`
      const text = JSON.stringify(await cyrnel.services.keyed.tools.echo.invoke({}));
      cyrnel.output({ header: text.includes('hdr-5ecret'), query: text.includes('qry-5ecret'), masked: text.split('***').length - 1 });`);
    expect(done).toMatchObject({ exitState: 'success', output: { header: false, query: false, masked: 2 } });
  });

  it('fails an oversized answer (bytes, depth, elements) as a catchable call error, and the same sandbox process goes on', async () => {
    const before = sandboxChildren();
    const { process: done, calls } = await run(`
      const reasons = {};
      for (const tool of ['big', 'deep', 'wide']) {
        try { await cyrnel.services.keyed.tools[tool].invoke({}); reasons[tool] = 'made'; }
        catch (e) { reasons[tool] = e.reason; }
      }
      const after = (await cyrnel.services.keyed.tools.getUser.invoke({ path: { id: 5 } })).body.id;
      cyrnel.output({ reasons, after });`);
    expect(done).toMatchObject({
      exitState: 'success',
      output: {
        reasons: {
          big: 'upstream_answer_too_large',
          deep: 'upstream_answer_too_large',
          wide: 'upstream_answer_too_large',
        },
        after: 5,
      },
    });
    expect(calls.map((call: Json) => [call.toolId, call.ok, call.errorReason])).toEqual([
      ['big', false, 'upstream_answer_too_large'],
      ['deep', false, 'upstream_answer_too_large'],
      ['wide', false, 'upstream_answer_too_large'],
      ['getUser', true, null],
    ]);
    const next = await run(
      'cyrnel.output({ id: (await cyrnel.services.keyed.tools.getUser.invoke({ path: { id: 6 } })).body.id });',
    );
    expect(next.process).toMatchObject({ exitState: 'success', output: { id: 6 } });
    expect(sandboxChildren()).toEqual(before);
  });
});
