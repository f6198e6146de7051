import { randomBytes } from 'node:crypto';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { type AuthorizationServer, followAuthorization, startAuthorizationServer } from '@cyrnel/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, startTestServer, tempDir } from './helpers';
import { oauthSpec, type ProtectedUpstream, startProtectedUpstream } from './oauth-upstream';

const KEY = 'oauth-connections-admin';
const WEB = { clientId: 'cyrnel-web', clientSecret: 'web-secret-5d0c7e1a' };
const MACHINE = { clientId: 'cyrnel-machine', clientSecret: 'machine-secret-8f2b4c6d' };

/** Code making `count` calls at once; answers the statuses the upstream gave. */
const calls = (who: string, count: number, service: string, connection?: string) => `
  const tools = ${connection ? `cyrnel.services.${service}.connection(${JSON.stringify(connection)}).tools` : `cyrnel.services.${service}.tools`};
  const answers = await Promise.all(Array.from({ length: ${count} }, () => tools.whoami.invoke({ query: { who: ${JSON.stringify(who)} } })));
  cyrnel.output({ statuses: answers.map((answer) => answer.status) });`;

const waitFor = async (what: () => boolean | Promise<boolean>, label: string) => {
  for (let i = 0; i < 400; i++) {
    if (await what()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${label}`);
};

describe.skipIf(!POSTGRES_TESTS.enabled)(
  "OAuth for a service's connections: sign-in, token placement, refresh, revocation, on both call paths and two hosts",
  () => {
    let database: FreshDatabase;
    let upstream: ProtectedUpstream;
    /** Long-lived tokens; short-lived access tokens (always within the refresh margin); refresh tokens that die at once. */
    let servers: { long: AuthorizationServer; short: AuthorizationServer; dying: AuthorizationServer };
    const dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
    const running: RunningServer[] = [];
    const secretsKey = randomBytes(32).toString('base64');
    /** Host `a` makes calls from its sandbox processes (the egress gateway); host `b` through its gate. */
    let hosts: { a: RunningServer; b: RunningServer };
    /** Every answer text any request of the test got from cyrnel: no token may appear in one. */
    const answers: string[] = [];

    const start = async (hostId: string, direct: boolean) => {
      const dir = await tempDir();
      dirs.push(dir);
      const server = await startTestServer({
        dataDir: dir.path,
        port: 0,
        apiKey: KEY,
        secretsKey,
        hostId,
        urlAllowCidrs: ['127.0.0.1/32'],
        noDirectToolCalls: !direct,
        database: { kind: 'postgres', url: database.url },
      });
      running.push(server);
      return server;
    };
    const api = (server: RunningServer) => {
      const call = apiClient(server.url, KEY);
      return async (method: string, path: string, body?: unknown) => {
        const response = await call(method, path, body);
        answers.push(response.text);
        return response;
      };
    };
    const run = async (server: RunningServer, code: string) => {
      const created = await api(server)('POST', '/processes', { code, wait: true, timeoutMs: 30_000 });
      expect(created.status, created.text).toBe(201);
      return created.body;
    };
    const install = async (id: string, as: AuthorizationServer) => {
      const installed = await api(hosts.a)('POST', '/services', {
        id,
        adapter: 'openapi',
        definition: JSON.stringify(oauthSpec(upstream.url.replace(/\/$/, ''), as.issuer)),
        enabled: true,
      });
      expect(installed.status, installed.text).toBe(201);
    };
    /** Make connection `name` of `service` and sign it in with the code flow, the browser coming back to `back`. */
    const signIn = async (service: string, name: string, back: RunningServer = hosts.b) => {
      const made = await api(hosts.a)('POST', `/services/${service}/connections`, { name });
      expect(made.status, made.text).toBe(201);
      const started = await api(hosts.a)('POST', `/services/${service}/connections/${name}/authorize`, {
        ...WEB,
        scopes: ['read'],
        resource: upstream.url,
      });
      expect(started.status, started.text).toBe(200);
      const url = new URL(started.body.authorizationUrl);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      const callback = await followAuthorization(url);
      // The browser comes back to whichever host: the pending authorization is in the database.
      const landed = await fetch(`${back.url}/oauth/callback${callback.search}`);
      const text = await landed.text();
      answers.push(text);
      expect(landed.status, text).toBe(200);
      expect(text).toContain('Connected');
      return callback;
    };
    const tokensSince = (from: number) => upstream.seen.slice(from);

    beforeAll(async () => {
      database = await freshPostgresDatabase('cyrnel_oauth_connections');
      upstream = await startProtectedUpstream(() => Object.values(servers).map((as) => as.issuer));
      hosts = { a: await start('host-a', true), b: await start('host-b', false) };
      const clients = [
        { ...WEB, redirectUris: [`${hosts.a.url}/oauth/callback`, `${hosts.b.url}/oauth/callback`] },
        { ...MACHINE, grantTypes: ['client_credentials'] },
      ];
      servers = {
        long: await startAuthorizationServer({ clients, scopes: ['read'] }),
        short: await startAuthorizationServer({ clients, scopes: ['read'], accessTokenTtl: 10 }),
        dying: await startAuthorizationServer({
          clients,
          scopes: ['read'],
          accessTokenTtl: 16,
          refreshTokenTtl: 1,
        }),
      };
      await install('api', servers.long);
      await install('fast', servers.short);
      await install('dying', servers.dying);
    }, 90_000);
    afterAll(async () => {
      for (const server of running) await server.close();
      for (const as of Object.values(servers ?? {})) await as.close();
      await upstream?.close();
      for (const dir of dirs) await dir.remove();
      await database?.drop();
    }, 60_000);

    it('signs in with the code flow and PKCE; calls carry the token on both call paths', async () => {
      await signIn('api', 'default');
      const record = await api(hosts.a)('GET', '/services/api/connections/default');
      expect(record.body).toMatchObject({
        status: 'connected',
        oauth: {
          scheme: 'login',
          flow: 'authorizationCode',
          clientId: WEB.clientId,
          pending: false,
          scopes: ['read'],
        },
      });
      expect(Date.parse(record.body.oauth.expiresAt)).toBeGreaterThan(Date.now());
      const from = upstream.seen.length;
      expect((await run(hosts.a, calls('direct', 2, 'api'))).output).toEqual({ statuses: [200, 200] });
      expect((await run(hosts.b, calls('gate', 2, 'api'))).output).toEqual({ statuses: [200, 200] });
      const seen = tokensSince(from);
      expect(seen.map((request) => [request.who, request.valid])).toEqual([
        ['direct', true],
        ['direct', true],
        ['gate', true],
        ['gate', true],
      ]);
      expect(new Set(seen.map((request) => request.token)).size).toBe(1);
    });

    it('refuses a wrong, replayed or unknown state with 400 oauth_state_invalid', async () => {
      const callback = await signIn('api', 'replayed', hosts.a);
      const again = await apiClient(hosts.b.url)('GET', `/oauth/callback${callback.search}`);
      expect(again.status).toBe(400);
      expect(again.body.reason).toBe('oauth_state_invalid');
      const wrong = await apiClient(hosts.a.url)('GET', '/oauth/callback?code=abc&state=not-a-state');
      expect(wrong.status).toBe(400);
      expect(wrong.body.reason).toBe('oauth_state_invalid');
      const none = await apiClient(hosts.a.url)('GET', '/oauth/callback?code=abc');
      expect(none.body.reason).toBe('oauth_state_invalid');
    });

    it('gets a token at once with client credentials', async () => {
      await api(hosts.a)('POST', '/services/api/connections', { name: 'machine' });
      const signed = await api(hosts.a)('POST', '/services/api/connections/machine/authorize', {
        ...MACHINE,
        flow: 'clientCredentials',
        scopes: ['read'],
        resource: upstream.url,
      });
      expect(signed.status, signed.text).toBe(200);
      expect(signed.body).toMatchObject({
        name: 'machine',
        status: 'connected',
        oauth: { flow: 'clientCredentials' },
      });
      const grants = servers.long.count({ grantType: 'client_credentials', ok: true });
      expect(grants).toBeGreaterThanOrEqual(1);
      const from = upstream.seen.length;
      expect((await run(hosts.a, calls('machine', 1, 'api', 'machine'))).output).toEqual({ statuses: [200] });
      expect((await run(hosts.b, calls('machine', 1, 'api', 'machine'))).output).toEqual({ statuses: [200] });
      expect(tokensSince(from).every((request) => request.valid)).toBe(true);
    });

    it('refreshes an access token about to expire before the calls: exactly once for concurrent calls on two hosts and both call paths', async () => {
      await signIn('fast', 'default');
      // Its access token lives 10 s: within half its lifetime of its expiry, the next call refreshes it.
      const record = await api(hosts.a)('GET', '/services/fast/connections/default');
      const expiresAt = Date.parse(record.body.oauth.expiresAt);
      await waitFor(
        () => expiresAt - Date.now() < 4_000,
        'the access token to come within its refresh margin',
      );
      const refreshes = servers.short.count({ grantType: 'refresh_token' });
      const from = upstream.seen.length;
      const [a, b] = await Promise.all([
        run(hosts.a, calls('together-a', 4, 'fast')),
        run(hosts.b, calls('together-b', 4, 'fast')),
      ]);
      expect(a.output).toEqual({ statuses: [200, 200, 200, 200] });
      expect(b.output).toEqual({ statuses: [200, 200, 200, 200] });
      expect(servers.short.count({ grantType: 'refresh_token' })).toBe(refreshes + 1);
      const seen = tokensSince(from);
      expect(seen).toHaveLength(8);
      expect(seen.every((request) => request.valid)).toBe(true);
      // Every call carried the refreshed token, not the one about to expire.
      expect(new Set(seen.map((request) => request.token)).size).toBe(1);
      const after = await api(hosts.b)('GET', '/services/fast/connections/default');
      expect(Date.parse(after.body.oauth.expiresAt)).toBeGreaterThan(expiresAt);
    }, 30_000);

    it('refreshes once on a 401 and makes the call again, on both call paths', async () => {
      for (const [server, who] of [
        [hosts.a, 'refused-direct'],
        [hosts.b, 'refused-gate'],
      ] as const) {
        // The upstream withdraws the token the api's default connection holds now.
        const before = await run(server, calls(`${who}-probe`, 1, 'api'));
        expect(before.output).toEqual({ statuses: [200] });
        const held = upstream.seen.at(-1)?.token as string;
        upstream.refused.add(held);
        const refreshes = servers.long.count({ grantType: 'refresh_token', ok: true });
        const from = upstream.seen.length;
        expect((await run(server, calls(who, 1, 'api'))).output).toEqual({ statuses: [200] });
        expect(servers.long.count({ grantType: 'refresh_token', ok: true })).toBe(refreshes + 1);
        expect(tokensSince(from).map((request) => request.valid)).toEqual([false, true]);
      }
    });

    it('refreshes at most once for a burst of calls an upstream refuses whatever the token, and answers its 401s', async () => {
      for (const [server, who] of [
        [hosts.a, 'flood-direct'],
        [hosts.b, 'flood-gate'],
      ] as const) {
        upstream.refusing.add(who);
        const refreshes = servers.long.count({ grantType: 'refresh_token' });
        const from = upstream.seen.length;
        // Fifty calls at once, each refused: each is made once more after the refresh, and the
        // upstream's second 401 is the call's answer (no loop, no failure of cyrnel's own).
        expect((await run(server, calls(who, 50, 'api'))).output).toEqual({ statuses: Array(50).fill(401) });
        // A refresh is asked only by a call refused with the tokens held now: the calls made with
        // the old token share one; one first made after it (a machine too busy to send all fifty
        // at once) may ask once more. Never one per call.
        expect(servers.long.count({ grantType: 'refresh_token' }) - refreshes).toBeGreaterThanOrEqual(1);
        expect(servers.long.count({ grantType: 'refresh_token' }) - refreshes).toBeLessThanOrEqual(2);
        expect(tokensSince(from)).toHaveLength(100);
        // The connection is still usable for callers the upstream accepts.
        expect((await run(server, calls(`${who}-after`, 1, 'api'))).output).toEqual({ statuses: [200] });
      }
    });

    it('marks a connection whose refresh is refused reauthorization_required; its calls fail upstream_unauthorized', {
      timeout: 30_000,
    }, async () => {
      await signIn('dying', 'default');
      // Its refresh token lives a second; its access token (16 s) is refreshed within 8 s of its end.
      const signed = await api(hosts.a)('GET', '/services/dying/connections/default');
      const expiresAt = Date.parse(signed.body.oauth.expiresAt);
      await waitFor(
        () => expiresAt - Date.now() < 7_000,
        'the access token to come within its refresh margin',
      );
      const failed = await run(
        hosts.b,
        `
        try { await cyrnel.services.dying.tools.whoami.invoke({ query: { who: 'dying' } }); cyrnel.output({ ok: true }); }
        catch (error) { cyrnel.output({ reason: error.reason }); }`,
      );
      expect(failed.output).toEqual({ reason: 'upstream_unauthorized' });
      const record = await api(hosts.a)('GET', '/services/dying/connections/default');
      expect(record.body.status).toBe('reauthorization_required');
      expect(record.body.statusMessage).toContain('invalid_grant');
      expect(servers.dying.count({ grantType: 'refresh_token', ok: false })).toBeGreaterThanOrEqual(1);
      // "Connect" again without a body: the same client, scheme and scopes, a new authorization.
      const again = await api(hosts.b)('POST', '/services/dying/connections/default/authorize');
      expect(again.status, again.text).toBe(200);
      const callback = await followAuthorization(again.body.authorizationUrl);
      expect((await fetch(`${hosts.a.url}/oauth/callback${callback.search}`)).status).toBe(200);
      const back = await api(hosts.b)('GET', '/services/dying/connections/default');
      expect(back.body).toMatchObject({
        status: 'connected',
        statusMessage: null,
        oauth: { clientId: WEB.clientId },
      });
    });

    it('revokes the tokens of a deleted connection', async () => {
      await signIn('api', 'leaving');
      const revocations = servers.long.count({ endpoint: 'revocation' });
      const deleted = await api(hosts.a)('DELETE', '/services/api/connections/leaving');
      expect(deleted.status).toBe(204);
      await waitFor(
        () => servers.long.count({ endpoint: 'revocation', ok: true }) > revocations,
        'the revocation',
      );
    });

    it('never shows a token, a client secret or a verifier in an answer, nor stores one in plain text', async () => {
      const tokens = new Set(
        upstream.seen.map((request) => request.token).filter((token) => token !== undefined),
      );
      expect(tokens.size).toBeGreaterThan(3);
      const secrets = [...tokens, WEB.clientSecret, MACHINE.clientSecret];
      const listed = await api(hosts.a)('GET', '/services/api/connections');
      expect(listed.status).toBe(200);
      for (const text of answers)
        for (const secret of secrets) expect(text.includes(secret as string)).toBe(false);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query('select * from service_connections');
        const dump = JSON.stringify(rows);
        expect(dump).toContain('oauth');
        for (const secret of secrets) expect(dump.includes(secret as string)).toBe(false);
        // Neither the refresh tokens (opaque) nor any process record.
        const processes = JSON.stringify((await client.query('select * from processes')).rows);
        for (const secret of secrets) expect(processes.includes(secret as string)).toBe(false);
      } finally {
        await client.end();
      }
    });
  },
);
