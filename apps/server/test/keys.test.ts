import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import {
  AGENT_CODE,
  apiClient,
  type Json,
  parseSse,
  shopSpec,
  startTestServer,
  startUpstream,
  tempDir,
  UPSTREAM_KEY,
  type Upstream,
  useServer,
} from './helpers';

// A pending timer keeps the run alive (a promise nothing can settle would be ended at once).
const HANGS = 'await new Promise((resolve) => setTimeout(resolve, 60_000));';

/** Every route an agent key may not use, with a body where the route takes one. */
const ADMIN_ONLY_ROUTES: readonly (readonly [string, string, unknown?])[] = [
  ['GET', '/modules'],
  ['GET', '/modules/openapi'],
  ['POST', '/modules/openapi/enabled', { enabled: true }],
  ['POST', '/modules/reload'],
  ['GET', '/modules/openapi/config'],
  ['PATCH', '/modules/openapi/config', []],
  ['GET', '/modules/openapi/secrets'],
  ['PATCH', '/modules/openapi/secrets', []],
  ['GET', '/modules/openapi/config/schema'],
  ['GET', '/modules/openapi/secrets/schema'],
  ['GET', '/services'],
  ['POST', '/services', { id: 'evil', adapter: 'openapi', definition: '{}' }],
  ['GET', '/services/shop'],
  ['PATCH', '/services/shop', { definition: '{}' }],
  ['DELETE', '/services/shop'],
  ['POST', '/services/shop/enabled', { enabled: false }],
  ['GET', '/services/shop/config'],
  ['PATCH', '/services/shop/config', [{ op: 'add', path: '/baseUrl', value: 'http://evil.example' }]],
  ['GET', '/services/shop/secrets'],
  ['PATCH', '/services/shop/secrets', [{ op: 'add', path: '/shopKey', value: 'x' }]],
  ['GET', '/services/shop/config/schema'],
  ['GET', '/services/shop/secrets/schema'],
  ['GET', '/services/shop/policy'],
  ['PUT', '/services/shop/policy', { default: 'allow' }],
  ['POST', '/tools/shop/getUser/enabled', { enabled: false }],
  ['GET', '/keys'],
  ['POST', '/keys', { name: 'escalate', role: 'admin' }],
  ['DELETE', '/keys/someid'],
  ['GET', '/principals'],
  ['POST', '/principals', { name: 'escalate' }],
  ['GET', '/principals/someid'],
  ['DELETE', '/principals/someid'],
];

describe('API keys with roles', () => {
  let server: RunningServer;
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let admin: ReturnType<typeof apiClient>;
  const agents: Record<'a' | 'b', { id: string; key: string; api: ReturnType<typeof apiClient> }> =
    {} as never;

  beforeAll(async () => {
    dir = await tempDir();
    upstream = await startUpstream();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: 'bootstrap-admin',
      allowPrivateUrls: true,
      maxProcessesPerKey: 2,
    });
    admin = apiClient(server.url, 'bootstrap-admin');
    for (const name of ['a', 'b'] as const) {
      const created = await admin('POST', '/keys', { name: `agent ${name}`, role: 'agent' });
      expect(created.status).toBe(201);
      agents[name] = {
        id: created.body.id,
        key: created.body.key,
        api: apiClient(server.url, created.body.key),
      };
    }
    await admin('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(upstream.url)),
    });
    await admin('PATCH', '/services/shop/secrets', [{ op: 'add', path: '/shopKey', value: UPSTREAM_KEY }]);
    expect((await admin('POST', '/services/shop/enabled', { enabled: true })).status).toBe(200);
  });

  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dir?.remove();
  });

  it('creates keys shown once and lists them without the key or its hash', async () => {
    const created = await admin('POST', '/keys', { name: 'second admin', role: 'admin' });
    expect(created).toMatchObject({
      status: 201,
      body: { name: 'second admin', role: 'admin', lastUsedAt: null },
    });
    expect(created.body.key).toMatch(/^cyk_[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const listed = await admin('GET', '/keys');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((key: Json) => key.name)).toEqual(['agent a', 'agent b', 'second admin']);
    expect(Object.keys(listed.body.items[2]).sort()).toEqual([
      'createdAt',
      'id',
      'lastUsedAt',
      'name',
      'policy',
      'prefix',
      'principalId',
      'role',
      'scope',
    ]);
    expect(listed.body.items[2]).toMatchObject({ scope: null, policy: null });
    expect(listed.text).not.toContain(created.body.key);
    expect(created.body.key.startsWith(listed.body.items[2].prefix)).toBe(true);
    // A stored admin key can do what the bootstrap key does.
    const second = apiClient(server.url, created.body.key);
    expect((await second('GET', '/services/shop/config')).status).toBe(200);
    expect((await admin('POST', '/keys', { name: 'x', role: 'root' })).body.code).toBe('invalid_request');
  });

  it('refuses every admin route to an agent key with 403 naming the role and the route', async () => {
    for (const [method, path, body] of ADMIN_ONLY_ROUTES) {
      const response = await agents.a.api(method, path, body);
      expect({ route: `${method} ${path}`, status: response.status, code: response.body.code }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        code: 'forbidden',
      });
      expect(response.body.error).toContain(`the agent role may not use ${method} ${path}`);
    }
    // Nothing changed: the service still points at the upstream with its secret.
    const config = await admin('GET', '/services/shop/config');
    expect(config.body.config.baseUrl ?? upstream.url).toBe(upstream.url);
    expect((await admin('GET', '/services/shop')).body.enabled).toBe(true);
    expect((await admin('GET', '/services/shop/secrets')).body).toEqual({ present: ['/shopKey'] });
  });

  it('lets an agent key read tools and the environment docs', async () => {
    for (const path of [
      '/tools',
      '/tools/shop/getUser',
      '/tools/shop/getUser/docs',
      '/environment/docs',
      '/environment/types',
    ]) {
      expect({ path, status: (await agents.a.api('GET', path)).status }).toEqual({ path, status: 200 });
    }
  });

  it('runs an agent process and shows it to its key and to admins only', async () => {
    const { api } = agents.a;
    const run = await api('POST', '/processes', { code: AGENT_CODE, wait: true, ref: 'mine' });
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({
      exitState: 'success',
      keyId: agents.a.id,
      output: { name: 'user-7', orderCount: 2, total: 12 },
    });
    const id = run.body.id as number;
    for (const path of ['', '/code', '/stdout', '/stderr', '/output', '/calls', '/events']) {
      expect({ path, status: (await api('GET', `/processes/${id}${path}`)).status }).toEqual({
        path,
        status: 200,
      });
    }
    expect(parseSse((await api('GET', `/processes/${id}/events`)).text).at(-1)?.event).toBe('exit');
    expect((await api('GET', '/processes')).body.items.map((p: Json) => p.id)).toEqual([id]);

    const other = agents.b.api;
    for (const [method, path, body] of [
      ['GET', ''],
      ['GET', '/code'],
      ['GET', '/stdout'],
      ['GET', '/output'],
      ['GET', '/calls'],
      ['GET', '/events'],
      ['POST', '/signals/run', { force: true }],
      ['POST', '/signals/kill'],
      ['DELETE', ''],
    ] as const) {
      const response = await other(method, `/processes/${id}${path}`, body);
      expect({ path, status: response.status, code: response.body.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
    }
    expect((await other('GET', '/processes')).body.items).toEqual([]);
    expect((await other('GET', `/processes?keyId=${agents.a.id}`)).body.items).toEqual([]);

    const all = await admin('GET', '/processes');
    expect(all.body.items.map((p: Json) => p.id)).toContain(id);
    expect((await admin('GET', `/processes?keyId=${agents.a.id}`)).body.items.map((p: Json) => p.id)).toEqual(
      [id],
    );
    expect((await admin('GET', `/processes/${id}/output`)).body).toEqual({
      name: 'user-7',
      orderCount: 2,
      total: 12,
    });
    expect((await api('DELETE', `/processes/${id}`)).status).toBe(204);
  });

  it('bounds live processes per key with 429 and Retry-After while another key still gets through', async () => {
    const { api } = agents.a;
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await api('POST', '/processes', { code: HANGS, timeoutMs: 60_000 });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const refused = await api('POST', '/processes', { code: HANGS });
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 429,
      code: 'too_many_processes',
    });
    expect(refused.body.error).toContain('at most 2');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await agents.b.api('POST', '/processes', {
      code: 'cyrnel.output({ ok: true })',
      wait: true,
    });
    expect(other).toMatchObject({ status: 201, body: { exitState: 'success', keyId: agents.b.id } });
    // An admin may kill an agent's process; the slot is free again.
    expect((await admin('POST', `/processes/${ids[0]}/signals/kill`)).status).toBe(200);
    await expect
      .poll(async () => (await api('POST', '/processes', { code: 'cyrnel.output({})', wait: true })).status)
      .toBe(201);
    await api('POST', `/processes/${ids[1]}/signals/kill`);
  });

  it('refuses a deleted key with 401', async () => {
    const listed = await admin('GET', '/keys');
    expect(listed.body.items.find((key: Json) => key.id === agents.b.id).lastUsedAt).not.toBeNull();
    expect((await admin('DELETE', `/keys/${agents.b.id}`)).status).toBe(204);
    expect((await admin('DELETE', `/keys/${agents.b.id}`)).status).toBe(404);
    const refused = await agents.b.api('GET', '/processes');
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 401,
      code: 'unauthorized',
    });
    expect((await agents.a.api('GET', '/processes')).status).toBe(200);
  });
});

describe('a server started without --api-key', () => {
  const { api, url } = useServer();

  it('stays open until the first key is stored, then needs a key on every route but /health', async () => {
    expect((await api('GET', '/services')).status).toBe(200);
    const created = await api('POST', '/keys', { name: 'operator', role: 'admin' });
    expect(created.status).toBe(201);
    expect((await api('GET', '/services')).status).toBe(401);
    expect((await apiClient(url())('GET', '/health')).status).toBe(200);
    expect((await apiClient(url(), created.body.key)('GET', '/services')).status).toBe(200);
  });
});

describe('binding a non-loopback address', () => {
  it('is refused without any key, and allowed once a key is stored in the data directory', async () => {
    const dir = await tempDir();
    try {
      await expect(startTestServer({ dataDir: dir.path, port: 0, host: '0.0.0.0' })).rejects.toThrow(
        /refusing to bind 0\.0\.0\.0 without an API key.*POST \/keys/,
      );
      const local = await startTestServer({ dataDir: dir.path, port: 0 });
      try {
        // Still no key stored: the database exists now, the refusal comes after opening it.
        await expect(startTestServer({ dataDir: dir.path, port: 0, host: '0.0.0.0' })).rejects.toThrow(
          /refusing/,
        );
        expect((await apiClient(local.url)('POST', '/keys', { name: 'ops', role: 'admin' })).status).toBe(
          201,
        );
      } finally {
        await local.close();
      }
      const exposed = await startTestServer({ dataDir: dir.path, port: 0, host: '0.0.0.0' });
      try {
        const health = await fetch(`http://127.0.0.1:${exposed.port}/health`);
        expect(health.status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${exposed.port}/services`)).status).toBe(401);
      } finally {
        await exposed.close();
      }
    } finally {
      await dir.remove();
    }
  });
});
