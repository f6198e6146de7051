import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import {
  adapterManifest,
  apiClient,
  type Json,
  shopSpec,
  startTestServer,
  startUpstream,
  tempDir,
  UPSTREAM_KEY,
  type Upstream,
  writeModule,
} from './helpers';
import { NAMES_ADAPTER, textOf, toolsClient } from './mcp-tools-helpers';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'tools-stdio-admin';

/** Counts the list changes a client is told. */
function changes() {
  let seen = 0;
  return { seen: () => seen, tell: () => void seen++ };
}

describe('direct tools over stdio (cyrnel-server mcp --tools) and list changes', () => {
  let server: RunningServer;
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;
  let scopedKey: string;
  const closers: (() => Promise<unknown>)[] = [];

  /** A client of the bridge, started as a client starts a command. */
  const bridge = async (
    args: string[],
    env: Record<string, string>,
    era: 'modern' | 'legacy',
    options: ConstructorParameters<typeof Client>[1] = {},
  ) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--tools', ...args],
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'pipe',
    });
    const client = new Client(
      { name: 'tools-stdio-test', version: '1.0.0' },
      { ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}), ...options },
    );
    await client.connect(transport);
    closers.push(() => client.close());
    return client;
  };
  const install = async (id: string, spec: Json) => {
    const installed = await api('POST', '/services', {
      id,
      adapter: 'openapi',
      definition: JSON.stringify(spec),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
  };

  beforeAll(async () => {
    dir = await tempDir();
    upstream = await startUpstream();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      urlAllowCidrs: ['127.0.0.1/32'],
    });
    api = apiClient(server.url, KEY);
    await install('shop', shopSpec(upstream.url));
    await install('store', shopSpec(upstream.url));
    const scoped = await api('POST', '/keys', {
      name: 'desktop',
      role: 'agent',
      scope: { services: ['shop'] },
    });
    scopedKey = scoped.body.key;
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await server?.close();
    await upstream?.close();
    await dir?.remove();
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`bridges a ${era} client to the server's /mcp/tools with a key scoped to one service`, async () => {
      const client = await bridge([], { CYRNEL_URL: server.url, CYRNEL_API_KEY: scopedKey }, era);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['shop__getUser', 'shop__listOrders']);
      expect(tools[0]?.annotations).toMatchObject({ readOnlyHint: true });
      const user = await client.callTool({ name: 'shop__getUser', arguments: { path: { id: 5 } } });
      expect(user.isError, textOf(user)).toBeFalsy();
      expect(user.structuredContent).toMatchObject({ status: 200, body: { name: 'user-5' } });
      const refused = await client.callTool({ name: 'store__getUser', arguments: { path: { id: 5 } } });
      expect(refused._meta).toMatchObject({ 'cyrnel/reason': 'tool_blocked' });
      const unknown = await client.callTool({ name: 'nope__nothing', arguments: {} }).catch((error) => error);
      expect(unknown).toMatchObject({ code: -32602 });
    });
  }

  it('tells a listening client over HTTP, and the bridge’s clients of both revisions over stdio, that the tools changed', async () => {
    const overHttp = changes();
    const listening = await toolsClient(server.url, KEY, 'modern', {
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => overHttp.tell() } },
    });
    closers.push(() => listening.close());
    const overStdio = changes();
    const client = await bridge([], { CYRNEL_URL: server.url, CYRNEL_API_KEY: KEY }, 'legacy');
    client.setNotificationHandler('notifications/tools/list_changed', () => overStdio.tell());
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('extra0__getUser');
    // A 2026-07-28 client of the bridge listens for them.
    const overModernStdio = changes();
    await bridge([], { CYRNEL_URL: server.url, CYRNEL_API_KEY: KEY }, 'modern', {
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => overModernStdio.tell() } },
    });
    const told = () => overHttp.seen() > 0 && overStdio.seen() > 0 && overModernStdio.seen() > 0;
    // A change made before a client's subscription is open reaches nobody: change the catalog
    // again until each was told (each change is a service more).
    let installed = 0;
    while (!told()) {
      expect(installed, 'changes made before every client was told').toBeLessThan(10);
      await install(`extra${installed++}`, shopSpec(upstream.url));
      for (let i = 0; i < 100 && !told(); i++) await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('extra0__getUser');
  });

  it('serves the tools of an embedded host with --embedded, asking its own user through the client', async () => {
    const embedded = await tempDir('cyrnel-tools-embedded-');
    closers.push(() => embedded.remove());
    await writeModule(embedded.path, 'names', adapterManifest('names'), NAMES_ADAPTER);
    // A server on the directory first, to install a service; then the bridge runs the host itself.
    const first = await startTestServer({ dataDir: embedded.path, port: 0, apiKey: 'embedded-setup' });
    const setup = apiClient(first.url, 'embedded-setup');
    const installed = await setup('POST', '/services', {
      id: 'echo',
      adapter: 'names',
      definition: JSON.stringify(['say', 'shout']),
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    expect((await setup('PUT', '/services/echo/policy', { tools: { shout: 'ask' } })).status).toBe(200);
    await first.close();
    // One bridge at a time: each runs the host on the directory.
    for (const era of ['modern', 'legacy'] as const) {
      const asked: string[] = [];
      const client = await bridge(['--embedded', '--data-dir', embedded.path], {}, era, {
        capabilities: { elicitation: { form: {} } },
      });
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push((request.params as { message: string }).message);
        return { action: 'accept', content: { decision: 'approve' } };
      });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['echo__say', 'echo__shout']);
      expect(tools[0]?.outputSchema).toMatchObject({ type: 'object', required: ['echoed'] });
      const said = await client.callTool({ name: 'echo__say', arguments: { text: 'hello' } });
      expect(said.structuredContent).toEqual({ echoed: 'hello' });
      expect(asked).toEqual([]);
      const shouted = await client.callTool({ name: 'echo__shout', arguments: { text: era } });
      expect(shouted.structuredContent, textOf(shouted)).toEqual({ echoed: era });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('echo.shout');
      await client.close();
    }
  });
});
