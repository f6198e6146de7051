import { randomBytes } from 'node:crypto';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatabaseTarget } from '../src/database-url';
import type { RunningServer, StartServerOptions } from '../src/index';
import { apiClient, startTestServer, tempDir } from './helpers';

const ADMIN = 'quota-admin-key';
const SECRETS_KEY = randomBytes(32).toString('base64');
/** A run whose stdout alone is past the quota below. */
const BIG = `console.log('x'.repeat(40_000)); cyrnel.output({ done: true });`;

/** A server for one `describe` block on a fresh data directory (and `database` when given), and its admin. */
function useQuotaServer(options: Partial<StartServerOptions>, database?: () => DatabaseTarget) {
  let server: RunningServer | undefined;
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  beforeAll(async () => {
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: ADMIN,
      ...(database ? { database: database(), secretsKey: SECRETS_KEY } : {}),
      ...options,
    });
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });
  const url = () => (server as RunningServer).url;
  return {
    url,
    admin: () => apiClient(url(), ADMIN),
    /** A new stored agent key and its client. */
    async agent() {
      const created = await apiClient(url(), ADMIN)('POST', '/keys', { name: 'agent', role: 'agent' });
      expect(created.status).toBe(201);
      return { key: created.body.key as string, api: apiClient(url(), created.body.key) };
    },
  };
}

/** An MCP client of `url` with `key`. */
async function mcpClient(url: string, key: string): Promise<Client> {
  const client = new Client(
    { name: 'cyrnel-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** The quota and retention, on the store `database` gives (SQLite when absent). */
function quotaAndRetention(database?: () => DatabaseTarget) {
  describe('the stored-bytes quota per key', () => {
    const server = useQuotaServer({ maxStoredBytesPerKey: 30_000, processRetention: 0 }, database);

    it('refuses new runs of a key at its quota with 429 storage_quota_exceeded and Retry-After, on /processes and /mcp', async () => {
      const { key, api } = await server.agent();
      const big = await api('POST', '/processes', { code: BIG, wait: true });
      expect(big.status).toBe(201);
      expect(big.body).toMatchObject({ exitState: 'success' });

      const refused = await api('POST', '/processes', { code: '1' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(refused.body).toMatchObject({
        code: 'quota_exceeded',
        reason: 'storage_quota_exceeded',
        error: expect.stringMatching(
          /storage quota of 30000 bytes: delete processes .*DELETE \/processes\/:id/,
        ),
      });
      const rerun = await api('POST', `/processes/${big.body.id}/signals/run`, { force: true });
      expect(rerun.status).toBe(429);
      expect(rerun.body.reason).toBe('storage_quota_exceeded');

      const client = await mcpClient(server.url(), key);
      try {
        const run = await client.callTool({ name: 'execute_typescript', arguments: { code: '1' } });
        expect(run.isError).toBe(true);
        expect(JSON.stringify(run.content)).toContain('storage quota of 30000 bytes');
      } finally {
        await client.close();
      }

      // Another key, and the operator's bootstrap key, are not held by this key's quota.
      const other = await server.agent();
      expect((await other.api('POST', '/processes', { code: '1' })).status).toBe(201);
      expect((await server.admin()('POST', '/processes', { code: BIG, wait: true })).status).toBe(201);

      // Deleting what it holds gives the key room again.
      expect((await api('DELETE', `/processes/${big.body.id}`)).status).toBe(204);
      expect((await api('POST', '/processes', { code: '1' })).status).toBe(201);
    });
  });

  describe('retention', () => {
    const server = useQuotaServer(
      { maxStoredBytesPerKey: 30_000, processRetention: 1000, processRetentionCount: 0 },
      database,
    );

    it('prunes idle processes past the retention in the background, and the key gets its room back', async () => {
      const { api } = await server.agent();
      const live = await api('POST', '/processes', {
        code: 'await new Promise((resolve) => setTimeout(resolve, 20_000));',
        timeoutMs: 30_000,
      });
      expect(live.status).toBe(201);
      const big = await api('POST', '/processes', { code: BIG, wait: true });
      expect(big.status).toBe(201);
      // Over the quota (its results count as soon as it ended), unless retention (1 s) already
      // pruned the finished one on a slow machine.
      const refused = await api('POST', '/processes', { code: '1' });
      if (refused.status !== 429) {
        expect(refused.status).toBe(201);
        expect((await api('GET', `/processes/${big.body.id}`)).status).toBe(404);
      }
      // Retention (1 s) runs every 250 ms here: the finished process goes within a few passes.
      await vi.waitFor(async () => expect((await api('GET', `/processes/${big.body.id}`)).status).toBe(404), {
        timeout: 10_000,
        interval: 50,
      });
      // The running one is never pruned, however old.
      expect((await api('GET', `/processes/${live.body.id}`)).body).toMatchObject({ state: 'running' });
      expect((await api('POST', '/processes', { code: '1' })).status).toBe(201);
      expect((await api('POST', `/processes/${live.body.id}/signals/kill`)).status).toBe(200);
    });
  });
}

describe('quotas and retention on SQLite', () => quotaAndRetention());

describe.skipIf(!POSTGRES_TESTS.enabled)('quotas and retention on PostgreSQL', () => {
  let database: FreshDatabase | undefined;
  beforeAll(async () => {
    database = await freshPostgresDatabase('cyrnel_q');
  });
  afterAll(async () => {
    await database?.drop();
  });
  quotaAndRetention(() => ({ kind: 'postgres', url: (database as FreshDatabase).url }));
});

describe('the request rate per key', () => {
  const server = useQuotaServer({ rateLimit: 1, rateLimitBurst: 3 });

  it('answers 429 rate_limited with Retry-After past the burst, on /processes and /mcp together', async () => {
    const { key, api } = await server.agent();
    for (let i = 0; i < 3; i++) expect((await api('POST', '/processes', { code: '1' })).status).toBe(201);
    const refused = await api('POST', '/processes', { code: '1' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({ code: 'rate_limited', reason: 'rate_limited' });
    const mcp = await fetch(`${server.url()}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(429);
    expect(mcp.headers.get('retry-after')).not.toBeNull();
    // Reads are not limited, nor another key, nor the operator's bootstrap key.
    expect((await api('GET', '/processes')).status).toBe(200);
    expect((await (await server.agent()).api('POST', '/processes', { code: '1' })).status).toBe(201);
    for (let i = 0; i < 5; i++)
      expect((await server.admin()('POST', '/processes', { code: '1' })).status).toBe(201);
  });
});
