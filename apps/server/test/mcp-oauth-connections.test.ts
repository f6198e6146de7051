import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

describe('an MCP server behind OAuth: each connection signs in through the server, for its principal only', () => {
  let scenario: ConformanceScenario;
  let server: RunningServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  /** Every answer text of the test: no token, verifier or authorization URL of a call may be in one. */
  const answers: string[] = [];
  const as =
    (key: string = KEY) =>
    async (method: string, path: string, body?: unknown) => {
      const response = await apiClient(server.url, key)(method, path, body);
      answers.push(response.text);
      return response;
    };
  const admin = as();

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
    expect(url.searchParams.get('redirect_uri')).toBe(`${server.url}/oauth/callback`);
    let next = url.href;
    for (let hop = 0; hop < 5 && !next.startsWith(`${server.url}/oauth/callback`); hop++) {
      const answer = await fetch(next, { redirect: 'manual' });
      await answer.body?.cancel();
      next = new URL(answer.headers.get('location') as string, next).href;
    }
    expect(next.startsWith(`${server.url}/oauth/callback`)).toBe(true);
    const back = await fetch(next);
    answers.push(await back.text());
    expect(back.status).toBe(200);
    // The state is used once: the same callback again is refused.
    const replay = await fetch(next);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ reason: 'oauth_state_invalid' });
  };

  const run = async (key: string, code: string) => {
    const created = await as(key)('POST', '/processes', { code, wait: true, timeoutMs: 30_000 });
    expect(created.status, created.text).toBe(201);
    return created.body as Json;
  };

  beforeAll(async () => {
    scenario = await startConformanceScenario(SUITE, 'auth/metadata-default');
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      urlAllowCidrs: ['127.0.0.1/32'],
    });
  });
  afterAll(async () => {
    await server?.close();
    await scenario?.stop();
    await dir?.remove();
  });

  it('installs without contacting the server, lists its tools once authorized, and keeps principals apart', async () => {
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
    expect(fresh.body.oauth).toMatchObject({ flow: 'authorizationCode', pending: false, expiresAt: null });
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
    const his = await run(bob.key, code);
    expect(his.exitState).toBe('failed');
    const hisCalls = await admin('GET', `/processes/${his.id}/calls`);
    expect(hisCalls.text).toContain('upstream_unauthorized');
    // The authorization URL goes to whoever may authorize the connection, never to agent code.
    expect(`${hisCalls.text}${JSON.stringify(his)}`).not.toMatch(/state=|code_challenge/);
    const bobRecord = await admin('GET', '/services/guarded/connections/bob');
    expect(bobRecord.body.status).toBe('reauthorization_required');
    // Naming alice's connection from bob's run is refused before anything is sent.
    const named = await run(
      bob.key,
      `cyrnel.output({ result: await cyrnel.services.guarded.connection('alice').tools.${tool}.invoke({}) });`,
    );
    expect((await admin('GET', `/processes/${named.id}/calls`)).text).toContain('connection_forbidden');
    // A principal without a connection of its own uses the shared one.
    const carol = await principal('carol');
    expect((await run(carol.key, code)).exitState).toBe('success');

    const text = answers.join('\n');
    for (const secret of ['access_token', 'refresh_token', 'code_verifier', 'codeVerifier'])
      expect(text).not.toContain(secret);
  });
});
