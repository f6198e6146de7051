import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Json, type Upstream, useShopServer } from './helpers';

const KEY = 'mcp-cancel-admin-key';

/** Calls the upstream over and over (`/users/1`, `/users/2`, …) until it is stopped. */
const LOOP = `
for (let i = 1; ; i++) {
  await cyrnel.services.shop.tools.getUser.invoke({ path: { id: i } });
  await new Promise((resolve) => setTimeout(resolve, 10));
}`;

const userCalls = (upstream: Upstream) =>
  upstream.requests.filter((line) => line.startsWith('GET /users/')).length;

// A 2025-era client over stateless HTTP cancels a call with a POST of its own
// (`notifications/cancelled`, what the 1.x SDK sends when a call is aborted) while the call's
// request stays open: the notification must reach that call, and only that caller's.
describe('cancelling a call over 2025-era Streamable HTTP (the 1.x SDK aborting it)', () => {
  const shop = useShopServer({ apiKey: KEY });
  const keys: Record<'owner' | 'other', string> = { owner: '', other: '' };

  beforeAll(async () => {
    for (const name of ['owner', 'other'] as const)
      keys[name] = (await shop.api('POST', '/keys', { name, role: 'agent' })).body.key;
  });

  it("kills the run of the caller's aborted call, and no tool call reaches the upstream after it; another key's cancellation of the same id does nothing", async () => {
    // The JSON-RPC id of the call, as the client sends it.
    let callId: unknown;
    const transport = new TransportV1(new URL(`${shop.url()}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${keys.owner}` } },
      fetch: (url, init) => {
        const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
        if (body?.method === 'tools/call') callId = body.id;
        return fetch(url, init);
      },
    });
    const client = new ClientV1({ name: 'cancel-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const controller = new AbortController();
      const call = client
        .callTool({ name: 'execute_typescript', arguments: { code: LOOP, timeoutMs: 120_000 } }, undefined, {
          signal: controller.signal,
          timeout: 120_000,
        })
        .catch((error: unknown) => error);
      await shop.upstream().arrived('/users/3');
      expect(callId).toBeDefined();

      // Another key sends the cancellation of that very id: it is not its request.
      const foreign = await fetch(`${shop.url()}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.other}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: callId },
        }),
      });
      expect(foreign.status).toBe(202);
      const before = userCalls(shop.upstream());
      // The run goes on: the upstream keeps being called.
      await shop.upstream().arrived(`/users/${before + 3}`);

      controller.abort('the user pressed stop');
      expect(String(await call)).toContain('the user pressed stop');
      let record: Json;
      for (let i = 0; i < 200; i++) {
        record = (await shop.api('GET', '/processes?limit=5')).body.items.find(
          (item: Json) => item.state === 'idle' && item.exitState === 'canceled',
        );
        if (record) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(record).toMatchObject({ state: 'idle', exitState: 'canceled' });
      // Killed, not left to its deadline: the upstream sees no call after it (the loop called it
      // every 10 ms or so).
      const seen = userCalls(shop.upstream());
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(userCalls(shop.upstream())).toBe(seen);
    } finally {
      await client.close();
    }
  });
});
