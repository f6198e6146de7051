import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopSpec, UPSTREAM_KEY, useShopServer } from './helpers';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'mcp-list-changed-admin-key';

/** How long one wait for a change may take: two slow looks of the bridge and a slow listing. */
const CHANGE_WAIT_MS = 120_000;

/** The lists a client was told changed, in order, each with the tools it listed again. */
interface Changes {
  readonly options: ConstructorParameters<typeof Client>[1];
  /**
   * The next change of `kind`'s list whose listing satisfies `until` (changes before it are
   * passed over: a busy server may tell one change in two steps). Fails, naming what was seen,
   * when the client's listing fails or nothing comes within {@link CHANGE_WAIT_MS}.
   */
  next(kind: 'tools' | 'resources', until?: (items: unknown[]) => boolean): Promise<unknown[]>;
}

/** Client options following list changes (no debounce), and a way to wait for the next. */
function listChanges(era: 'modern' | 'legacy'): Changes {
  type Told = { items: unknown[] } | { error: Error };
  const queued = { tools: [] as Told[], resources: [] as Told[] };
  const wake = { tools: () => {}, resources: () => {} };
  const seen: string[] = [];
  const on = (kind: 'tools' | 'resources') => ({
    debounceMs: 0,
    onChanged: (error: Error | null, items: unknown[] | null) => {
      seen.push(`${kind}${error ? ` (listing failed: ${error.message})` : ''}`);
      queued[kind].push(error ? { error } : { items: items ?? [] });
      wake[kind]();
    },
  });
  const next = async (kind: 'tools' | 'resources', until: (items: unknown[]) => boolean = () => true) => {
    const deadline = Date.now() + CHANGE_WAIT_MS;
    for (;;) {
      const told = queued[kind].shift();
      if (told && 'error' in told) throw told.error;
      if (told && until(told.items)) return told.items;
      if (told) continue;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `${era}: no ${kind} change came in ${CHANGE_WAIT_MS} ms; told so far: ${seen.join(', ') || 'nothing'}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake[kind] = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  return {
    options: {
      ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      listChanged: { tools: on('tools'), resources: on('resources') },
    },
    next,
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
        // The bridge's own log (a failed look at the catalog) lands in the test's output.
        stderr: 'inherit',
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
    expect(
      describing(await modern.next('tools', (tools) => describing(tools).includes('- store:'))),
    ).toContain('- shop:');
    await modern.next('resources');
    expect(describing((await legacy.listTools()).tools)).toContain('- store:');

    await remove('store');
    expect(
      describing(await modern.next('tools', (tools) => !describing(tools).includes('- store:'))),
    ).toContain('- shop:');
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

    const has = (id: string) => (tools: unknown[]) => describing(tools).includes(`- ${id}:`);
    await install('market');
    for (const era of ['modern', 'legacy'] as const) {
      expect(describing(await eras[era].next('tools', has('market'))), era).toContain('- shop:');
      await eras[era].next('resources');
    }

    await remove('market');
    for (const era of ['modern', 'legacy'] as const) {
      const told = await eras[era].next('tools', (tools) => !has('market')(tools));
      expect(describing(told), era).toContain('- shop:');
      expect(describing((await bridged[era].listTools()).tools), era).toContain('- shop:');
    }
    // The bridge reads the server's catalog version (GET /tools/version) every second.
  }, 300_000);
});
