import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import {
  AGENT_CODE,
  apiClient,
  parseSse,
  shopSpec,
  startTestServer,
  startUpstream,
  tempDir,
  UPSTREAM_KEY,
  type Upstream,
} from './helpers';

describe('agent flow', () => {
  let server: RunningServer;
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    dir = await tempDir();
    upstream = await startUpstream();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: 'agent-key',
      allowPrivateUrls: true,
    });
    api = apiClient(server.url, 'agent-key');
  });

  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dir?.remove();
  });

  it('installs a service inline, sets its secrets, enables it and runs a process calling two tools', async () => {
    const installed = await api('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(upstream.url)),
    });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({
      id: 'shop',
      adapter: 'openapi',
      enabled: false,
      toolCount: 2,
      source: null,
    });

    const secrets = await api('PATCH', '/services/shop/secrets', [
      { op: 'add', path: '/shopKey', value: UPSTREAM_KEY },
    ]);
    expect(secrets).toMatchObject({ status: 200, body: { updated: true } });
    expect(secrets.text).not.toContain(UPSTREAM_KEY);
    expect((await api('GET', '/services/shop/secrets')).body).toEqual({ present: ['/shopKey'] });

    const enabled = await api('POST', '/services/shop/enabled', { enabled: true });
    expect(enabled).toMatchObject({ status: 200, body: { id: 'shop', enabled: true } });

    const result = await api('POST', '/processes', { code: AGENT_CODE, ref: 'agent', wait: true });
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({
      state: 'idle',
      exitState: 'success',
      ref: 'agent',
      error: null,
      output: { name: 'user-7', orderCount: 2, total: 12 },
      stdout: 'fetched 200 200\n',
      stderr: 'a warning\n',
    });
    expect(upstream.requests).toEqual(expect.arrayContaining(['GET /users/7', 'GET /orders?userId=7']));

    const id = result.body.id as number;
    const events = await fetch(`${server.url}/processes/${id}/events`, {
      headers: { authorization: 'Bearer agent-key' },
    });
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    const parsed = parseSse(await events.text());
    expect(parsed.map((event) => event.event)).toContain('stdout');
    expect(parsed.at(-1)).toEqual({
      event: 'exit',
      data: { exitState: 'success', error: null, errorReason: null },
    });
    const patches = parsed.filter((event) => event.event === 'output').map((event) => event.data.patch);
    expect(Object.assign({}, ...patches)).toEqual({ name: 'user-7', orderCount: 2, total: 12 });

    const calls = await api('GET', `/processes/${id}/calls`);
    expect(calls.body.items).toEqual([
      expect.objectContaining({ serviceId: 'shop', toolId: 'getUser', ok: true, errorCode: null }),
      expect.objectContaining({ serviceId: 'shop', toolId: 'listOrders', ok: true, errorCode: null }),
    ]);
  });

  it('installs the same service by URL (through a redirect) when the address is allowed', async () => {
    const installed = await api('POST', '/services', {
      id: 'shopByUrl',
      adapter: 'openapi',
      url: `${upstream.url}/redirect`,
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({
      id: 'shopByUrl',
      enabled: true,
      source: `${upstream.url}/redirect`,
    });
    const result = await api('POST', '/processes', {
      code: `const r = await cyrnel.services.shopByUrl.tools.getUser.invoke({ path: { id: 3 } }); cyrnel.output({ name: r.body.name });`,
      wait: true,
    });
    expect(result.body).toMatchObject({ exitState: 'success', output: { name: 'user-3' } });
  });
});
