import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, type Json, shopSpec, startTestServer, tempDir, UPSTREAM_KEY } from './helpers';
import { sandboxChildren } from './sandbox-children';

/** One request the upstream received: the key it carried and the process whose socket sent it. */
interface Seen {
  readonly path: string;
  readonly key: string | undefined;
  readonly pid: number | undefined;
}

/**
 * The pid owning the client end of a loopback TCP connection from `port` to `serverPort` (Linux:
 * /proc/net/tcp, then the fds). Both ports count: processes running beside this test (other test
 * files, other programs) may hold connections from the same local port to other servers.
 */
function pidOfLocalPort(port: number, serverPort: number): number | undefined {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
  // Sockets closed earlier (TIME_WAIT, inode 0) may have used the same port: the live one counts.
  const inode = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((row) => row.trim().split(/\s+/))
    .find(
      (fields) =>
        fields[1]?.endsWith(`:${hex(port)}`) &&
        fields[2]?.endsWith(`:${hex(serverPort)}`) &&
        fields[9] !== '0',
    )?.[9];
  if (!inode) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      for (const fd of readdirSync(`/proc/${entry}/fd`)) {
        if (readlinkSync(`/proc/${entry}/fd/${fd}`) === `socket:[${inode}]`) return Number(entry);
      }
    } catch {
      // A process that went away or is not ours.
    }
  }
  return undefined;
}

/** The shop upstream, recording which process sent each request; `/users/0` answers 500, `/users/99` never. */
async function startShop(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let base = '';
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const key = request.headers['x-api-key'];
    seen.push({
      path: url.pathname,
      key: typeof key === 'string' ? key : undefined,
      pid: pidOfLocalPort(request.socket.remotePort ?? 0, request.socket.localPort ?? 0),
    });
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/spec.json') return json(200, shopSpec(base));
    if (key !== UPSTREAM_KEY && key !== 'rotated-key') return json(401, { message: 'bad key' });
    const user = /^\/users\/(\d+)$/.exec(url.pathname);
    if (user?.[1] === '0') return json(500, { message: 'broken' });
    if (user?.[1] === '99') return; // held: a call in flight
    if (user) return json(200, { id: Number(user[1]), name: `user-${user[1]}` });
    if (url.pathname === '/orders') return json(200, [{ id: 1, userId: 1, amount: 5 }]);
    return json(404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Every kind of answer the gate and the adapter give, one call each, recorded in the output. */
const TOUR = `
const results = [];
const attempt = async (service, tool, parameters) => {
  try {
    const value = await cyrnel.services[service].tools[tool].invoke(parameters);
    return { ok: { status: value.status, body: value.body } };
  } catch (e) {
    return { status: e.status, code: e.code, reason: e.reason, message: e.message };
  }
};
results.push(await attempt('shop', 'getUser', { path: { id: 7 } }));
results.push(await attempt('shop', 'getUser', { path: { id: 8 } }));
results.push(await attempt('shop', 'getUser', { path: { id: 'seven' } }));
results.push(await attempt('shop', 'getUser', {}));
results.push(await attempt('shop', 'getUser', { path: { id: 0 } }));
results.push(await attempt('shop', 'listOrders', { query: { userId: 1 } }));
results.push(await attempt('shop', 'nope', {}));
results.push(await attempt('ghost', 'getUser', {}));
results.push(...(await Promise.all([1, 2, 3].map((id) => attempt('shop', 'getUser', { path: { id } })))));
cyrnel.output({ results });
`;

describe('direct tool calls: sandbox processes send portable calls to the egress gateway', () => {
  let server: RunningServer;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;

  /** Run `code` to its end; answers the process record, its output and its audited calls. */
  const run = async (code: string, timeoutMs = 20_000) => {
    const created = await api('POST', '/processes', { code, wait: true, timeoutMs });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const calls = await api('GET', `/processes/${id}/calls?limit=100`);
    return { process: created.body, output: created.body.output, calls: calls.body.items as Json[] };
  };
  /** The process once it is idle again. */
  const idle = async (id: number) => {
    for (;;) {
      const { body } = await api('GET', `/processes/${id}`);
      if (body.state === 'idle') return body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const setDirect = async (on: boolean) => {
    const patched = await api('PATCH', '/modules/typescript-ivm/config', [
      { op: 'add', path: '/directToolCalls', value: on },
    ]);
    expect(patched.status).toBe(200);
  };

  beforeAll(async () => {
    dir = await tempDir();
    shop = await startShop();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: 'direct-key',
      allowPrivateUrls: true,
    });
    api = apiClient(server.url, 'direct-key');
    expect(
      (
        await api('POST', '/services', {
          id: 'shop',
          adapter: 'openapi',
          definition: JSON.stringify(shopSpec(shop.url)),
          secrets: { shopKey: UPSTREAM_KEY },
          enabled: true,
        })
      ).status,
    ).toBe(201);
    expect((await api('POST', '/tools/shop/listOrders/enabled', { enabled: false })).status).toBe(200);
  });
  afterAll(async () => {
    await server?.close();
    await shop?.close();
    await dir?.remove();
  });

  it('answers and audits every call exactly as the gate does, and only valid calls leave, from the server process', async () => {
    shop.seen.length = 0;
    const direct = await run(TOUR);
    const fromDirect = shop.seen.splice(0);
    // Taken now: a config change starts the sandbox processes anew.
    const children = new Set(sandboxChildren());
    await setDirect(false);
    const gated = await run(TOUR);
    const fromGate = shop.seen.splice(0);
    await setDirect(true);

    // The same answers, in the same order, on both paths.
    expect(direct.process.exitState).toBe('success');
    expect(direct.output).toEqual(gated.output);
    const results = direct.output.results as Json[];
    expect(results[0]).toMatchObject({ ok: { status: 200, body: { id: 7, name: 'user-7' } } });
    expect(results.slice(2, 4).map((r: Json) => r.reason)).toEqual([
      'invalid_parameters',
      'invalid_parameters',
    ]);
    expect(results[4]).toMatchObject({ ok: { status: 500 } });
    expect(results.slice(5, 8).map((r: Json) => r.reason)).toEqual([
      'tool_disabled',
      'tool_not_found',
      'service_not_found',
    ]);

    // The same audit: one record per call, with the gate's codes.
    const strip = (calls: Json[]) =>
      calls
        .map(({ startedAt: _s, durationMs: _d, ...rest }: Json) => rest)
        .sort((a: Json, b: Json) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(direct.calls).toHaveLength(11);
    expect(strip(direct.calls)).toEqual(strip(gated.calls));
    expect(direct.calls.filter((call: Json) => call.ok)).toHaveLength(6);
    for (const call of direct.calls) {
      expect(Date.parse(call.startedAt)).toBeGreaterThan(0);
      expect(call.durationMs).toBeGreaterThanOrEqual(0);
    }

    // Only the valid calls reached the upstream, on both paths from the server's own process (its
    // egress gateway's workers), never from a sandbox process.
    expect(fromDirect.map((seen) => seen.path).sort()).toEqual(fromGate.map((seen) => seen.path).sort());
    expect(fromDirect).toHaveLength(6);
    expect(children.size).toBeGreaterThan(0);
    for (const seen of [...fromDirect, ...fromGate]) expect(seen.pid, JSON.stringify(seen)).toBe(process.pid);
  });

  it('refuses names longer than any id on both paths, recording them cut short', async () => {
    shop.seen.length = 0;
    const code = `
const huge = 'x'.repeat(1_000_000);
const reasons = [];
for (const [service, tool] of [['shop', huge], [huge, 'getUser']]) {
  try { await cyrnel.services[service].tools[tool].invoke({}); } catch (e) { reasons.push([e.reason, e.message.length]); }
}
cyrnel.output({ reasons });
`;
    const shown = `${'x'.repeat(128)}…`;
    for (const direct of [true, false]) {
      await setDirect(direct);
      const { process: record, output, calls } = await run(code);
      expect(record.exitState).toBe('success');
      const reasons = output.reasons as [string, number][];
      expect(reasons.map(([reason]) => reason)).toEqual(['tool_not_found', 'service_not_found']);
      for (const [, length] of reasons) expect(length).toBeLessThan(400);
      expect(calls).toMatchObject([
        { serviceId: 'shop', toolId: shown, ok: false, errorReason: 'tool_not_found' },
        { serviceId: shown, toolId: 'getUser', ok: false, errorReason: 'service_not_found' },
      ]);
    }
    await setDirect(true);
    expect(shop.seen).toHaveLength(0);
  });

  it('reaches every sandbox process before a disable is acknowledged: the next call never leaves', async () => {
    shop.seen.length = 0;
    const created = await api('POST', '/processes', {
      code: `
        await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 1 } });
        await new Promise((resolve) => setTimeout(resolve, 1500));
        try {
          await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 2 } });
          cyrnel.output({ second: 'made' });
        } catch (e) {
          cyrnel.output({ second: e.reason });
        }`,
      timeoutMs: 20_000,
    });
    expect(created.status).toBe(201);
    while (shop.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await api('POST', '/services/shop/enabled', { enabled: false })).status).toBe(200);
    await idle(created.body.id);
    const output = await api('GET', `/processes/${created.body.id}/output`);
    expect(output.body).toEqual({ second: 'service_disabled' });
    expect(shop.seen.map((seen) => seen.path)).toEqual(['/users/1']);
    expect((await api('POST', '/services/shop/enabled', { enabled: true })).status).toBe(200);
  });

  it('uses new secrets from the call after the change', async () => {
    shop.seen.length = 0;
    const code = `cyrnel.output({ user: await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 3 } }) });`;
    await run(code);
    expect(
      (
        await api('PATCH', '/services/shop/secrets', [
          { op: 'replace', path: '/shopKey', value: 'rotated-key' },
        ])
      ).status,
    ).toBe(200);
    const after = await run(code);
    expect(after.output.user.status).toBe(200);
    expect(shop.seen.map((seen) => seen.key)).toEqual([UPSTREAM_KEY, 'rotated-key']);
    for (const seen of shop.seen) expect(seen.pid).toBe(process.pid);
  });

  it('records the calls made before the sandbox process crashed, and the one in flight, with the crash', async () => {
    shop.seen.length = 0;
    const created = await api('POST', '/processes', {
      code: `
        for (const id of [4, 5, 6, 99]) await cyrnel.services.shop.tools.getUser.invoke({ path: { id } });`,
      timeoutMs: 90_000,
    });
    expect(created.status).toBe(201);
    while (shop.seen.length < 4) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The sandbox processes (the run's among them) die; the gateway's call in flight is aborted.
    const children = sandboxChildren();
    expect(children.length).toBeGreaterThan(0);
    for (const pid of children) process.kill(pid, 'SIGKILL');
    const done = await idle(created.body.id);
    expect(done).toMatchObject({ exitState: 'failed' });
    expect(done.error).toContain('sandbox');
    const calls = await api('GET', `/processes/${created.body.id}/calls`);
    expect(calls.body.items.map((call: Json) => [call.toolId, call.ok, call.errorCode])).toEqual([
      ['getUser', true, null],
      ['getUser', true, null],
      ['getUser', true, null],
      ['getUser', false, null],
    ]);
    // The one in flight lasted until the crash.
    expect(calls.body.items[3].durationMs).toBeGreaterThanOrEqual(100);
  });
});
