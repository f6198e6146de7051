import { randomBytes } from 'node:crypto';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/create-logger';
import type { RunningServer } from '../src/index';
import { apiClient, type Json, startTestServer, tempDir, useServer } from './helpers';

// What an operator meets in the first hour of a fresh server: its keys, its address, its UI.

describe('a server without --api-key keeps an admin key among its stored keys', () => {
  const { api, url } = useServer();

  it('refuses a first key that is not an admin key, and revoking the last admin key', async () => {
    for (const role of ['agent', 'approver']) {
      const refused = await api('POST', '/keys', { name: 'bot', role });
      expect({ status: refused.status, reason: refused.body.reason }).toEqual({
        status: 409,
        reason: 'first_key_not_admin',
      });
      expect(refused.body.error).toMatch(/no admin key is stored yet: create an admin key first/);
    }
    // Still open: nothing was stored.
    expect((await api('GET', '/keys')).body.items).toEqual([]);

    const first = await api('POST', '/keys', { name: 'operator', role: 'admin' });
    expect(first.status).toBe(201);
    const asFirst = apiClient(url(), first.body.key);
    expect((await asFirst('POST', '/keys', { name: 'bot', role: 'agent' })).status).toBe(201);

    const last = await asFirst('DELETE', `/keys/${first.body.id}`);
    expect({ status: last.status, reason: last.body.reason }).toEqual({ status: 409, reason: 'last_admin' });
    expect(last.body.error).toContain(`key ${first.body.id} is the last admin key`);
    expect((await asFirst('GET', '/keys')).status).toBe(200);

    // With a second admin key, the first may go; then the second is the last.
    const second = await asFirst('POST', '/keys', { name: 'colleague', role: 'admin' });
    expect((await asFirst('DELETE', `/keys/${first.body.id}`)).status).toBe(204);
    const asSecond = apiClient(url(), second.body.key);
    expect((await asSecond('DELETE', `/keys/${second.body.id}`)).body.reason).toBe('last_admin');
    expect((await asSecond('DELETE', '/keys/0123456789abcdef')).body.reason).toBe('key_not_found');
  });
});

describe('a server with --api-key (a bootstrap admin key, never stored)', () => {
  const { api } = useServer({ apiKey: 'first-hour-bootstrap' });

  it('stores an agent key first and lets the last stored admin key go: the bootstrap key stays an admin', async () => {
    const agent = await api('POST', '/keys', { name: 'bot', role: 'agent' });
    expect(agent.status).toBe(201);
    const admin = await api('POST', '/keys', { name: 'colleague', role: 'admin' });
    expect((await api('DELETE', `/keys/${admin.body.id}`)).status).toBe(204);
    expect((await api('GET', '/keys')).body.items.map((key: Json) => key.role)).toEqual(['agent']);
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('two hosts on one PostgreSQL database without --api-key', () => {
  let database: FreshDatabase;
  const dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    database = await freshPostgresDatabase('cyrnel_fh');
    const secretsKey = randomBytes(32).toString('base64');
    for (const hostId of ['one', 'two']) {
      const dir = await tempDir();
      dirs.push(dir);
      servers.push(
        await startTestServer({
          dataDir: dir.path,
          port: 0,
          hostId,
          secretsKey,
          database: { kind: 'postgres', url: database.url },
        }),
      );
    }
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const dir of dirs) await dir.remove();
    await database?.drop();
  });

  it('never lets both revoke the last two admin keys at once', async () => {
    const [one, two] = servers as [RunningServer, RunningServer];
    const first = await apiClient(one.url)('POST', '/keys', { name: 'admin 0', role: 'admin' });
    expect(first.status).toBe(201);
    let keeper = first.body as Json;
    for (let round = 0; round < 6; round++) {
      const other = (
        await apiClient(one.url, keeper.key)('POST', '/keys', { name: `admin ${round + 1}`, role: 'admin' })
      ).body as Json;
      // Each key revokes the other, each on its own host.
      const [a, b] = await Promise.all([
        apiClient(one.url, keeper.key)('DELETE', `/keys/${other.id}`),
        apiClient(two.url, other.key)('DELETE', `/keys/${keeper.id}`),
      ]);
      // The loser is refused as the last admin, or, when the winner revoked the loser's own key
      // first, as a key that no longer exists: never both revoked.
      const statuses = [a.status, b.status].sort();
      expect(
        [
          [204, 409],
          [204, 401],
        ],
        `round ${round}: ${statuses}`,
      ).toContainEqual(statuses);
      const loser = [a, b].find((answer) => answer.status !== 204);
      expect(loser?.body.reason).toBe(loser?.status === 409 ? 'last_admin' : 'unauthorized');
      keeper = a.status === 204 ? keeper : other;
      const left = (await apiClient(two.url, keeper.key)('GET', '/keys')).body.items as Json[];
      expect(left.map((key) => key.id)).toEqual([keeper.id]);
    }
  });
});

describe('GET /openapi.json names the server the request reached', () => {
  const plain = useServer();
  const proxied = useServer({ publicUrl: 'https://cyrnel.example.com/' });

  it('at its own address and port, or at --public-url', async () => {
    const document = (await plain.api('GET', '/openapi.json')).body;
    expect(document.servers).toEqual([{ url: plain.url() }]);
    expect(plain.url()).not.toMatch(/:9371$/);
    expect((await proxied.api('GET', '/openapi.json')).body.servers).toEqual([
      { url: 'https://cyrnel.example.com' },
    ]);
  });
});

describe('GET / and the listening lines', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  const lines: Json[] = [];
  let withUi: RunningServer;
  let withoutUi: RunningServer;

  beforeAll(async () => {
    dir = await tempDir();
    const logger = createLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line)) });
    withUi = await startTestServer({ dataDir: `${dir.path}/a`, port: 0, logger });
    withoutUi = await startTestServer({ dataDir: `${dir.path}/b`, port: 0, noUi: true, logger });
  });
  afterAll(async () => {
    await withUi?.close();
    await withoutUi?.close();
    await dir?.remove();
  });

  it('leads a browser to the admin UI, and is a 404 without it', async () => {
    const home = await fetch(`${withUi.url}/`, { redirect: 'manual' });
    expect(home.status).toBe(302);
    expect(home.headers.get('location')).toBe('/ui/');
    const followed = await fetch(`${withUi.url}/`);
    expect(followed.url).toBe(`${withUi.url}/ui/`);
    expect(followed.headers.get('content-type')).toMatch(/text\/html/);
    const none = await fetch(`${withoutUi.url}/`, { redirect: 'manual' });
    expect(none.status).toBe(404);
    expect(((await none.json()) as Json).reason).toBe('route_not_found');
  });

  it('says where it listens and where the UI is, in a line for people and in the JSON announcement', () => {
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        msg: `cyrnel listening on ${withUi.url} — admin UI ${withUi.url}/ui/`,
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'listening', url: withUi.url, ui: `${withUi.url}/ui/` }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        msg: `cyrnel listening on ${withoutUi.url} (the admin UI is off)`,
      }),
    );
    const bare = lines.find((line) => line.msg === 'listening' && line.url === withoutUi.url);
    expect(bare).toBeDefined();
    expect(bare).not.toHaveProperty('ui');
  });
});
