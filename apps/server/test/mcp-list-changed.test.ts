import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopSpec, UPSTREAM_KEY, useShopServer } from './helpers';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'mcp-list-changed-admin-key';

/** The lists a client was told changed, in order, each with the tools it listed again. */
interface Changes {
  readonly options: ConstructorParameters<typeof Client>[1];
  /** The next change of `kind`'s list: the items the client listed again. */
  next(kind: 'tools' | 'resources'): Promise<unknown[]>;
}

/** Client options following list changes (no debounce), and a way to wait for the next. */
function listChanges(era: 'modern' | 'legacy'): Changes {
  const waiting = {
    tools: [] as ((items: unknown[]) => void)[],
    resources: [] as ((items: unknown[]) => void)[],
  };
  const queued = { tools: [] as unknown[][], resources: [] as unknown[][] };
  const on = (kind: 'tools' | 'resources') => ({
    debounceMs: 0,
    onChanged: (error: Error | null, items: unknown[] | null) => {
      if (error) throw error;
      const waiter = waiting[kind].shift();
      if (waiter) waiter(items ?? []);
      else queued[kind].push(items ?? []);
    },
  });
  return {
    options: {
      ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      listChanged: { tools: on('tools'), resources: on('resources') },
    },
    next: (kind) => {
      const ready = queued[kind].shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting[kind].push(resolve));
    },
  };
}

const describing = (tools: readonly unknown[]) =>
  (tools as Tool[]).find((tool) => tool.name === 'execute_typescript')?.description ?? '';

describe('list changes over MCP: the catalog changing reaches the clients that can be told', () => {
  const shop = useShopServer({ apiKey: KEY });
  let agentKey: string;
  const clients: Client[] = [];

  const install = async (id: string) => {
    const installed = await shop.api('POST', '/services', {
      id,
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(shop.upstream().url)),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    expect(installed.status).toBe(201);
  };
  const remove = async (id: string) => expect((await shop.api('DELETE', `/services/${id}`)).status).toBe(204);

  beforeAll(async () => {
    agentKey = (await shop.api('POST', '/keys', { name: 'desktop', role: 'agent' })).body.key;
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
  });

  const overHttp = async (changes: Changes) => {
    const client = new Client({ name: 'list-changed', version: '1.0.0' }, changes.options);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${shop.url()}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agentKey}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const overStdio = async (changes: Changes) => {
    const client = new Client({ name: 'list-changed-stdio', version: '1.0.0' }, changes.options);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { PATH: process.env.PATH ?? '', CYRNEL_URL: shop.url(), CYRNEL_API_KEY: agentKey },
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  };

  it('tells a 2026-07-28 client listening over HTTP; a 2025-era one (stateless, no stream) is not promised it, and lists the new catalog', async () => {
    const modern = listChanges('modern');
    const listening = await overHttp(modern);
    const legacy = await overHttp(listChanges('legacy'));
    expect(listening.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true },
    });
    expect(legacy.getServerCapabilities()).toMatchObject({
      tools: { listChanged: false },
      resources: { listChanged: false },
    });

    await install('store');
    expect(describing(await modern.next('tools'))).toContain('- store:');
    await modern.next('resources');
    expect(describing((await legacy.listTools()).tools)).toContain('- store:');

    await remove('store');
    expect(describing(await modern.next('tools'))).not.toContain('- store:');
    expect(describing((await legacy.listTools()).tools)).not.toContain('- store:');
  });

  it("renews execute_typescript's description over the stdio bridge and tells its clients of both eras", async () => {
    const eras = { modern: listChanges('modern'), legacy: listChanges('legacy') };
    const bridged = {
      modern: await overStdio(eras.modern),
      legacy: await overStdio(eras.legacy),
    };
    for (const client of Object.values(bridged)) {
      expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });
      expect(describing((await client.listTools()).tools)).toContain('- shop:');
    }

    await install('market');
    for (const era of ['modern', 'legacy'] as const) {
      expect(describing(await eras[era].next('tools')), era).toContain('- market:');
      await eras[era].next('resources');
    }

    await remove('market');
    for (const era of ['modern', 'legacy'] as const) {
      expect(describing(await eras[era].next('tools')), era).not.toContain('- market:');
      expect(describing((await bridged[era].listTools()).tools), era).toContain('- shop:');
    }
    // The bridge looks every 5 s, up to 15 s when a look is slow: two changes on a busy machine.
  }, 300_000);
});
