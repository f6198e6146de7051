import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '@cyrnel/store/testing';
import { type ConformanceScenario, startConformanceScenario } from '@cyrnel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, type Json, startTestServer, tempDir } from './helpers';

const require = createRequire(import.meta.url);
/** The official MCP conformance suite: its `auth/*` scenarios are MCP servers behind real authorization servers. */
const SUITE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const KEY = 'mcp-oauth-connections-admin';

/**
 * One host on a SQLite file, or two sharing a PostgreSQL database: `a` starts authorizations and
 * runs alice's calls, `b` gets the browser's callback (as behind a load balancer) and bob's calls.
 */
const SETUPS = [
  { name: 'one host (SQLite)', hosts: 1, enabled: true },
  { name: 'two hosts sharing PostgreSQL', hosts: 2, enabled: POSTGRES_TESTS.enabled },
] as const;

describe.each(SETUPS)(
  'an MCP server behind OAuth, $name: each connection signs in through the server, for its principal only',
  (setup) => {
    let scenario: ConformanceScenario;
    let hosts: { a: RunningServer; b: RunningServer };
    let database: FreshDatabase | undefined;
    const dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
    /** Every answer text of the test: no token, verifier or authorization URL of a call may be in one. */
    const answers: string[] = [];
    const as =
      (key: string = KEY, server: RunningServer = hosts.a) =>
      async (method: string, path: string, body?: unknown) => {
        const response = await apiClient(server.url, key)(method, path, body);
        answers.push(response.text);
        return response;
      };
    const admin = (method: string, path: string, body?: unknown) => as()(method, path, body);

    /** A principal with an agent key of its own. */
    const principal = async (name: string) => {
      const made = await admin('POST', '/principals', { name });
      expect(made.status, made.text).toBe(201);
      const key = await admin('POST', '/keys', {
        name: `${name}'s agent`,
        role: 'agent',
        principal: made.body.id,
      });
      expect(key.status, key.text).toBe(201);
      return { id: made.body.id as string, key: key.body.key as string };
    };

    /** Authorize a connection as its person would: open the URL, come back to the server's callback. */
    const authorize = async (name: string) => {
      const started = await admin('POST', `/services/guarded/connections/${name}/authorize`, {});
      expect(started.status, started.text).toBe(200);
      const url = new URL(started.body.authorizationUrl as string);
      const callback = `${hosts.a.url}/oauth/callback`;
      expect(url.searchParams.get('redirect_uri')).toBe(callback);
      let next = url.href;
      for (let hop = 0; hop < 5 && !next.startsWith(callback); hop++) {
        const answer = await fetch(next, { redirect: 'manual' });
        await answer.body?.cancel();
        next = new URL(answer.headers.get('location') as string, next).href;
      }
      expect(next.startsWith(callback)).toBe(true);
      // The browser's callback may reach any host of the database.
      next = `${hosts.b.url}${next.slice(hosts.a.url.length)}`;
      const back = await fetch(next);
      answers.push(await back.text());
      expect(back.status).toBe(200);
      // The state is used once: the same callback again is refused.
      const replay = await fetch(next);
      expect(replay.status).toBe(400);
      expect(await replay.json()).toMatchObject({ reason: 'oauth_state_invalid' });
    };

    const run = async (key: string, code: string, server: RunningServer = hosts.a) => {
      const created = await as(key, server)('POST', '/processes', { code, wait: true, timeoutMs: 30_000 });
      expect(created.status, created.text).toBe(201);
      return created.body as Json;
    };

    const start = async (hostId: string, secretsKey: string) => {
      const dir = await tempDir();
      dirs.push(dir);
      return startTestServer({
        dataDir: dir.path,
        port: 0,
        apiKey: KEY,
        hostId,
        secretsKey,
        urlAllowCidrs: ['127.0.0.1/32'],
        ...(database ? { database: { kind: 'postgres' as const, url: database.url } } : {}),
      });
    };

    beforeAll(async () => {
      if (!setup.enabled) return;
      scenario = await startConformanceScenario(SUITE, 'auth/metadata-default');
      const secretsKey = randomBytes(32).toString('base64');
      if (setup.hosts === 1) {
        const one = await start('host-a', secretsKey);
        hosts = { a: one, b: one };
      } else {
        database = await freshPostgresDatabase('cyrnel_mcp_oauth');
        hosts = { a: await start('host-a', secretsKey), b: await start('host-b', secretsKey) };
      }
    }, 90_000);
    afterAll(async () => {
      for (const server of new Set(hosts ? [hosts.a, hosts.b] : [])) await server.close();
      await scenario?.stop();
      for (const dir of dirs) await dir.remove();
      await database?.drop();
    });

    it.runIf(setup.enabled)(
      'installs without contacting the server, lists its tools once authorized, and keeps principals apart',
      async () => {
        const installed = await admin('POST', '/services', {
          id: 'guarded',
          adapter: 'mcp',
          definition: JSON.stringify({ transport: 'http', url: scenario.serverUrl, oauth: {} }),
          enabled: true,
        });
        expect(installed.status, installed.text).toBe(201);
        expect(installed.body.toolCount).toBe(0);

        // The shared connection is authorized by an admin; alice authorizes her own; bob never does.
        const alice = await principal('alice');
        const bob = await principal('bob');
        const shared = await admin('POST', '/services/guarded/connections', { name: 'default' });
        expect([201, 409]).toContain(shared.status);
        for (const [name, owner] of [
          ['alice', alice.id],
          ['bob', bob.id],
        ] as const) {
          const made = await admin('POST', '/services/guarded/connections', { name, owner });
          expect(made.status, made.text).toBe(201);
        }
        // Never signed in, yet an OAuth connection: what the admin UI shows a Connect button for.
        const fresh = await admin('GET', '/services/guarded/connections/bob');
        expect(fresh.body.oauth).toMatchObject({
          flow: 'authorizationCode',
          pending: false,
          expiresAt: null,
        });
        // An agent key never starts another principal's authorization.
        const foreign = await as(bob.key)('POST', '/services/guarded/connections/alice/authorize', {});
        expect(foreign.status).toBe(404);
        await authorize('default');
        await authorize('alice');
        const aliceRecord = await admin('GET', '/services/guarded/connections/alice');
        expect(aliceRecord.body).toMatchObject({
          status: 'connected',
          oauth: { pending: false, flow: 'authorizationCode' },
        });
        expect(aliceRecord.body.oauth.clientId).not.toBe('');

        const refreshed = await admin('POST', '/services/guarded/refresh');
        expect(refreshed.status, refreshed.text).toBe(200);
        const tools = await admin('GET', '/tools?serviceId=guarded');
        const ids = (tools.body.items as { id: string }[]).map((tool) => tool.id);
        expect(ids.length).toBeGreaterThan(0);
        const tool = ids.find((id) => /test/.test(id)) ?? (ids[0] as string);
        const code = `cyrnel.output({ result: await cyrnel.services.guarded.tools.${tool}.invoke({}) });`;

        // Alice's run uses her connection; bob's uses his, which no person authorized: it fails, and
        // never falls back to alice's tokens or the shared ones.
        const hers = await run(alice.key, code);
        expect(hers.exitState, JSON.stringify(hers)).toBe('success');
        const his = await run(bob.key, code, hosts.b);
        expect(his.exitState).toBe('failed');
        const hisCalls = await as(KEY, hosts.b)('GET', `/processes/${his.id}/calls`);
        expect(hisCalls.text).toContain('upstream_unauthorized');
        // The authorization URL goes to whoever may authorize the connection, never to agent code.
        expect(`${hisCalls.text}${JSON.stringify(his)}`).not.toMatch(/state=|code_challenge/);
        const bobRecord = await admin('GET', '/services/guarded/connections/bob');
        expect(bobRecord.body.status).toBe('reauthorization_required');
        // Naming alice's connection from bob's run is refused before anything is sent.
        const named = await run(
          bob.key,
          `cyrnel.output({ result: await cyrnel.services.guarded.connection('alice').tools.${tool}.invoke({}) });`,
          hosts.b,
        );
        expect((await as(KEY, hosts.b)('GET', `/processes/${named.id}/calls`)).text).toContain(
          'connection_forbidden',
        );
        // Alice's tokens, obtained through host b's callback, serve her runs on host b too.
        expect((await run(alice.key, code, hosts.b)).exitState).toBe('success');
        // A principal without a connection of its own uses the shared one.
        const carol = await principal('carol');
        expect((await run(carol.key, code)).exitState).toBe('success');

        const text = answers.join('\n');
        for (const secret of ['access_token', 'refresh_token', 'code_verifier', 'codeVerifier'])
          expect(text).not.toContain(secret);
      },
    );
  },
);
