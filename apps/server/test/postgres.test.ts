import { randomBytes } from 'node:crypto';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import {
  apiClient,
  shopSpec,
  startTestServer,
  startUpstream,
  tempDir,
  UPSTREAM_KEY,
  type Upstream,
} from './helpers';

const KEY = 'postgres-test-key';
const SECRETS_KEY = randomBytes(32).toString('base64');

describe.skipIf(!POSTGRES_TESTS.enabled)('the server on PostgreSQL (--database-url postgres://…)', () => {
  let database: FreshDatabase;
  let upstream: Upstream;
  let dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
  let server: RunningServer | undefined;

  const start = async () => {
    const dir = await tempDir();
    dirs.push(dir);
    return startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      secretsKey: SECRETS_KEY,
      urlAllowCidrs: ['127.0.0.1/32'],
      database: { kind: 'postgres', url: database.url },
    });
  };

  beforeAll(async () => {
    database = await freshPostgresDatabase('cyrnel_e');
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    for (const dir of dirs) await dir.remove();
    dirs = [];
    await database?.drop();
  });

  it('installs a service, runs a process through it, and keeps both across a restart on another data directory', async () => {
    server = await start();
    const api = apiClient(server.url, KEY);
    const installed = await api('POST', '/services', {
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(upstream.url)),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    expect(installed.status).toBe(201);
    const run = await api('POST', '/processes', {
      code: 'const u = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } }); cyrnel.output({ name: u.body.name });',
      wait: true,
    });
    expect(run.body).toMatchObject({ exitState: 'success', output: { name: expect.any(String) } });
    const found = await api('GET', '/tools?query=user');
    expect(found.body).toMatchObject({
      items: expect.arrayContaining([expect.objectContaining({ id: 'getUser' })]),
    });
    await server.close();
    // Another host (its own data directory) on the same database and secrets key sees it all.
    server = await start();
    const again = apiClient(server.url, KEY);
    expect((await again('GET', '/services/shop')).body).toMatchObject({ id: 'shop', enabled: true });
    expect((await again('GET', `/processes/${(run.body as { id: number }).id}/output`)).body).toEqual(
      (run.body as { output: unknown }).output,
    );
    const secretRun = await again('POST', '/processes', {
      code: 'const u = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } }); cyrnel.output({ status: u.status });',
      wait: true,
    });
    expect(secretRun.body).toMatchObject({ exitState: 'success', output: { status: 200 } });
    // API keys live in the database too: one created here works, and sees only its processes.
    const created = await again('POST', '/keys', { name: 'agent on postgres', role: 'agent' });
    expect(created.status).toBe(201);
    const agent = apiClient(server.url, (created.body as { key: string }).key);
    expect((await agent('GET', '/processes')).body).toMatchObject({ items: [] });
    expect((await agent('GET', '/services')).status).toBe(403);
  });
});
