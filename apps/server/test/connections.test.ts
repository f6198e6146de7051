import { POSTGRES_TESTS } from '@cyrnel/store/testing';
import { startTokenUpstream, type TokenUpstream } from '@cyrnel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, type Json } from './helpers';
import { useSharedHosts } from './shared-hosts';

const KEY = 'connections-admin';
const TOKENS = {
  shared: 'tok-shared-4c1f0a7e',
  alice: 'tok-alice-9b2e6d31',
  bob: 'tok-bob-57a8c0f2',
  work: 'tok-work-e03d9b64',
} as const;

/** Code making `count` calls at once, each saying who made it, with the connection `named` (or the run's own). */
const calls = (who: string, count: number, named?: string) => `
  const tools = ${named ? `cyrnel.services.gh.connection(${JSON.stringify(named)}).tools` : 'cyrnel.services.gh.tools'};
  const answers = await Promise.all(Array.from({ length: ${count} }, () => tools.whoami.invoke({ query: { who: ${JSON.stringify(who)} } })));
  cyrnel.output({ statuses: answers.map((answer) => answer.status) });`;

describe.skipIf(!POSTGRES_TESTS.enabled)(
  "connections: a run uses its principal's own credentials, never another's, on both call paths and two hosts",
  () => {
    const shared = useSharedHosts('cyrnel_connections', KEY);
    let upstream: TokenUpstream;
    /** Every request the upstream saw: who the code said it was, and the token it carried. */
    const seen = () => upstream.seen;
    /** Host `a` makes calls from its sandbox processes (the egress gateway); host `b` through its gate. */
    let hosts: { a: RunningServer; b: RunningServer };
    let alice: { id: string; key: string };
    let bob: { id: string; key: string };

    const start = async (hostId: string, direct: boolean) =>
      (await shared.start(hostId, { noDirectToolCalls: !direct })).server;
    const as = (server: RunningServer, key: string = KEY) => apiClient(server.url, key);

    /** A principal with an agent key of its own. */
    const principal = async (name: string) => {
      const admin = as(hosts.a);
      const made = await admin('POST', '/principals', { name });
      expect(made.status).toBe(201);
      const key = await admin('POST', '/keys', {
        name: `${name}'s agent`,
        role: 'agent',
        principal: made.body.id,
      });
      expect(key.status).toBe(201);
      return { id: made.body.id as string, key: key.body.key as string };
    };

    /** Run `code` on `server` as `key`, waiting for its end. */
    const run = async (server: RunningServer, key: string, code: string, extra: Json = {}) => {
      const created = await as(server, key)('POST', '/processes', {
        code,
        wait: true,
        timeoutMs: 30_000,
        ...extra,
      });
      expect(created.status, created.text).toBe(201);
      return created.body;
    };

    /** The tokens the upstream saw for each `who` since `from`. */
    const tokensBy = (from: number) => {
      const by = new Map<string, Set<string | undefined>>();
      for (const { who, token } of seen().slice(from)) {
        const set = by.get(who) ?? new Set();
        set.add(token);
        by.set(who, set);
      }
      return Object.fromEntries([...by].map(([who, tokens]) => [who, [...tokens]]));
    };

    beforeAll(async () => {
      upstream = await startTokenUpstream();
      hosts = { a: await start('host-a', true), b: await start('host-b', false) };
      const installed = await as(hosts.a)('POST', '/services', {
        id: 'gh',
        adapter: 'openapi',
        definition: JSON.stringify(upstream.spec()),
        secrets: { token: TOKENS.shared },
        enabled: true,
      });
      expect(installed.status, installed.text).toBe(201);
      alice = await principal('Alice');
      bob = await principal('Bob');
    }, 60_000);
    afterAll(async () => {
      await upstream?.close();
    });

    it("keeps the service's secrets as its shared default connection and lets each principal add its own", async () => {
      const listed = await as(hosts.b)('GET', '/services/gh/connections');
      expect(listed.status).toBe(200);
      expect(listed.body.items).toEqual([
        expect.objectContaining({
          serviceId: 'gh',
          name: 'default',
          owner: null,
          status: 'connected',
          secrets: ['/token'],
        }),
      ]);
      // Alice on one host, Bob on the other, each without naming an owner: their own.
      const mine = await as(hosts.a, alice.key)('POST', '/services/gh/connections', {
        name: 'alice',
        secrets: { token: TOKENS.alice },
      });
      expect(mine.status, mine.text).toBe(201);
      expect(mine.body).toMatchObject({ name: 'alice', owner: alice.id, secrets: ['/token'] });
      expect(mine.text).not.toContain(TOKENS.alice);
      const his = await as(hosts.b, bob.key)('POST', '/services/gh/connections', {
        name: 'bob',
        secrets: { token: TOKENS.bob },
      });
      expect(his.status, his.text).toBe(201);
      const shared = await as(hosts.a)('POST', '/services/gh/connections', {
        name: 'work',
        secrets: { token: TOKENS.work },
      });
      expect(shared.body).toMatchObject({ owner: null });

      // Each sees its own and the shared ones; another's answers 404 like a missing one.
      const aliceSees = await as(hosts.b, alice.key)('GET', '/services/gh/connections');
      expect(aliceSees.body.items.map((row: Json) => row.name).sort()).toEqual(['alice', 'default', 'work']);
      for (const [method, body] of [['GET'], ['PATCH', { secrets: { token: 'x' } }], ['DELETE']] as const) {
        const other = await as(hosts.a, alice.key)(method, '/services/gh/connections/bob', body);
        expect(other.status, `${method} ${other.text}`).toBe(404);
        expect(other.body.reason).toBe('connection_not_found');
      }
      const giveAway = await as(hosts.a, alice.key)('POST', '/services/gh/connections', {
        name: 'sneaky',
        owner: bob.id,
        secrets: { token: 'x' },
      });
      expect(giveAway.status).toBe(403);
      const sharedByAgent = await as(hosts.a, alice.key)('PATCH', '/services/gh/connections/work', {
        secrets: { token: 'x' },
      });
      expect(sharedByAgent.status).toBe(403);
      const duplicate = await as(hosts.a)('POST', '/services/gh/connections', { name: 'alice', owner: null });
      expect(duplicate).toMatchObject({ status: 409, body: { reason: 'connection_exists' } });
      const badName = await as(hosts.a)('POST', '/services/gh/connections', { name: 'Not A Name' });
      expect(badName).toMatchObject({ status: 400, body: { reason: 'invalid_request' } });
      const badSecrets = await as(hosts.a)('POST', '/services/gh/connections', {
        name: 'odd',
        secrets: { token: 7 },
      });
      expect(badSecrets.status).toBe(400);
      expect(badSecrets.text).not.toContain('"7"');
    });

    it("sends each principal's token, concurrently, on both call paths, and the shared one to a run without a principal", async () => {
      for (const host of [hosts.a, hosts.b]) {
        const from = seen().length;
        const results = await Promise.all([
          run(host, alice.key, calls('alice', 12)),
          run(host, bob.key, calls('bob', 12)),
          run(host, KEY, calls('nobody', 6)),
          run(host, alice.key, calls('alice-work', 6, 'work')),
        ]);
        for (const result of results) expect(result, result.error).toMatchObject({ exitState: 'success' });
        expect(tokensBy(from)).toEqual({
          alice: [TOKENS.alice],
          bob: [TOKENS.bob],
          nobody: [TOKENS.shared],
          'alice-work': [TOKENS.work],
        });
      }
    });

    it("refuses another principal's connection at the call and at create, and records whose a run is", async () => {
      for (const host of [hosts.a, hosts.b]) {
        const from = seen().length;
        const stolen = await run(
          host,
          alice.key,
          `try { await cyrnel.services.gh.connection('bob').tools.whoami.invoke({ query: { who: 'thief' } }); }
           catch (error) { cyrnel.output({ status: error.status, reason: error.reason }); }
           try { await cyrnel.services.gh.connection('nope').tools.whoami.invoke({ query: { who: 'thief' } }); }
           catch (error) { cyrnel.output({ missing: error.reason }); }`,
        );
        expect(stolen).toMatchObject({
          exitState: 'success',
          principalId: alice.id,
          output: { status: 403, reason: 'connection_forbidden', missing: 'connection_not_found' },
        });
        expect(seen().slice(from)).toEqual([]);
        const calls = await as(host, alice.key)('GET', `/processes/${stolen.id}/calls`);
        expect(calls.body.items.map((call: Json) => call.errorReason)).toEqual([
          'connection_forbidden',
          'connection_not_found',
        ]);
      }
      const named = await as(hosts.b, alice.key)('POST', '/processes', {
        code: 'cyrnel.output({})',
        connections: { gh: 'bob' },
      });
      expect(named).toMatchObject({ status: 403, body: { reason: 'connection_forbidden' } });
      const unknown = await as(hosts.a, alice.key)('POST', '/processes', {
        code: 'cyrnel.output({})',
        connections: { gh: 'nope' },
      });
      expect(unknown).toMatchObject({ status: 404, body: { reason: 'connection_not_found' } });
      const from = seen().length;
      const chosen = await run(hosts.a, alice.key, calls('alice-chose-work', 2), {
        connections: { gh: 'work' },
      });
      expect(chosen).toMatchObject({
        exitState: 'success',
        principalId: alice.id,
        connections: { gh: 'work' },
      });
      expect(tokensBy(from)).toEqual({ 'alice-chose-work': [TOKENS.work] });
    });

    it('follows a new token written on one host at once on the other, and a deleted connection falls back to the shared one', async () => {
      const rotated = `${TOKENS.alice}-rotated`;
      const patched = await as(hosts.a, alice.key)('PATCH', '/services/gh/connections/alice', {
        secrets: { token: rotated },
      });
      expect(patched.status, patched.text).toBe(200);
      const removed = await as(hosts.a, bob.key)('DELETE', '/services/gh/connections/bob');
      expect(removed.status).toBe(204);
      for (const host of [hosts.b, hosts.a]) {
        const from = seen().length;
        await Promise.all([run(host, alice.key, calls('alice', 3)), run(host, bob.key, calls('bob', 3))]);
        expect(tokensBy(from)).toEqual({ alice: [rotated], bob: [TOKENS.shared] });
      }
    });
  },
);
