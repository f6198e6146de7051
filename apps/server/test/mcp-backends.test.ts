import { type CyrnelClient, createClient } from '@cyrnel/client';
import { createApp } from '@cyrnel/http';
import {
  createBackendCatalogWatch,
  createClientBackend,
  createCyrnelMcpServer,
  createHostBackend,
  type McpBackend,
} from '@cyrnel/mcp';
import { Client, InMemoryTransport, type Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ComposedHost, composeHost } from '../src/compose-host';
import { createSilentLogger } from '../src/create-logger';
import { resolveServerConfig } from '../src/server-config';
import { ASKING_CODE, ASKING_POLICY, askingShopSpec } from './approval-helpers';
import { type Json, startUpstream, tempDir, UPSTREAM_KEY, type Upstream } from './helpers';

const KEY = 'backends-admin-key';

const CODE = `
const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
const orders = await cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 7 } });
console.log('two calls');
cyrnel.output({ name: user.body.name, orderCount: orders.body.length });
`;

/**
 * What differs between two runs of the same code: their process ids, durations (a call's, and a
 * run's wall and CPU time in the efficiency meter) and approval ids.
 */
function normalized(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/Process \d+/g, 'Process 0')
      .replace(/processId \d+/g, 'processId 0')
      .replace(/(\\?"processId\\?":)\d+/g, '$10')
      .replace(/(\\?"durationMs\\?":)[\d.]+/g, '$10')
      .replace(/(\\?"(?:wallMs|cpuMs)\\?":)[\d.]+/g, '$10')
      .replace(/ap_[\w-]+/g, 'ap_0'),
  );
}

// One MCP server logic over one interface, two adapters: the same host answers through both (in
// process, and over its HTTP API through @cyrnel/client), so every MCP answer must be the same.
describe('the MCP backends: the in-process host and the HTTP client answer alike', () => {
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let composed: ComposedHost;
  const clients: Client[] = [];
  let viaHost: Client;
  let viaHttp: Client;
  let http: CyrnelClient;
  let app: ReturnType<typeof createApp>;

  const connect = async (backend: McpBackend) => {
    const server = await createCyrnelMcpServer(backend, { version: '0.0.0-test' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'backends-test', version: '1.0.0' });
    await client.connect(clientSide);
    clients.push(client);
    return client;
  };

  /** The same request through both backends, in turn (so their processes do not overlap). */
  const both = async <T>(ask: (client: Client) => Promise<T>): Promise<{ host: T; http: T }> => {
    const host = await ask(viaHost);
    const http = await ask(viaHttp);
    return { host, http };
  };

  beforeAll(async () => {
    dir = await tempDir();
    upstream = await startUpstream();
    composed = await composeHost({
      config: resolveServerConfig({
        dataDir: dir.path,
        urlAllowCidrs: ['127.0.0.1/32'],
        defaultPolicy: ASKING_POLICY,
      }),
      logger: createSilentLogger(),
    });
    app = createApp(composed.host, { apiKey: KEY, keys: composed.keys, outbound: composed.outbound });
    http = createClient({
      baseUrl: 'http://127.0.0.1:9371',
      apiKey: KEY,
      fetch: (input, init) => Promise.resolve(app.fetch(new Request(input, init))),
    });
    await http.services.install({
      id: 'shop',
      adapter: 'openapi',
      // The shop with an operation the default policies ask a person about.
      definition: askingShopSpec(upstream.url),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    viaHost = await connect(createHostBackend({ host: composed.host }));
    viaHttp = await connect(createClientBackend(http));
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await composed?.closeHost({ graceMs: 0 });
    await composed?.closeStore();
    await upstream?.close();
    await dir?.remove();
  });

  it('lists the same tools, descriptions and schemas, and the same instructions', async () => {
    const { host, http } = await both((client) => client.listTools());
    expect(host.tools.map((tool) => tool.name)).toEqual([
      'search_tools',
      'get_tool_types',
      'execute_typescript',
      'get_process',
      'wait_process',
      'check_typescript',
    ]);
    expect(host.tools.find((tool) => tool.name === 'execute_typescript')?.description).toContain('getUser');
    expect(http).toEqual(host);
    expect(viaHttp.getInstructions()).toBe(viaHost.getInstructions());
  });

  it.each([
    ['a ranked search', { query: 'orders of a user' }],
    ['a search in one service, cut to one tool', { query: 'user', serviceId: 'shop', limit: 1 }],
    ['a search that finds nothing', { query: 'zzzz-nothing-like-it' }],
  ])('answers %s alike', async (_, query) => {
    const { host, http } = await both((client) =>
      client.callTool({ name: 'search_tools', arguments: query }),
    );
    expect(http).toEqual(host);
  });

  it('types the known tools and lists the unknown ones alike', async () => {
    const { host, http } = await both((client) =>
      client.callTool({
        name: 'get_tool_types',
        arguments: { tools: ['shop.getUser', 'shop.nope', 'malformed', 'shop.getUser.extra'] },
      }),
    );
    expect((host.structuredContent as Json).unknown).toEqual([
      'shop.nope',
      'malformed',
      'shop.getUser.extra',
    ]);
    expect((host.structuredContent as Json).declarations).toContain('getUser');
    expect(http).toEqual(host);
  });

  it('runs code calling two tools with the same view, progress included', async () => {
    const progress = { host: [] as number[], http: [] as number[] };
    const run = (client: Client, seen: number[]) =>
      client.callTool(
        { name: 'execute_typescript', arguments: { code: CODE } },
        { onprogress: (event) => void seen.push(event.progress) },
      );
    const host = await run(viaHost, progress.host);
    const http = await run(viaHttp, progress.http);
    expect(host.structuredContent).toMatchObject({
      state: 'idle',
      exitState: 'success',
      output: { name: 'user-7', orderCount: 2 },
      stdout: 'two calls\n',
    });
    expect(normalized(http)).toEqual(normalized(host));
    expect(progress.host.at(-1)).toBe(2);
    expect(progress.http.at(-1)).toBe(2);
  });

  it('answers a failed run as the same error result', async () => {
    const { host, http } = await both((client) =>
      client.callTool({ name: 'execute_typescript', arguments: { code: 'throw new Error("boom")' } }),
    );
    expect(host.isError).toBe(true);
    expect(normalized(http)).toEqual(normalized(host));
  });

  it('answers a run still going with its processId, then get_process waits for the same result', async () => {
    const code = 'await new Promise((resolve) => setTimeout(resolve, 1500)); cyrnel.output({ late: true });';
    const { host, http } = await both(async (client) => {
      const started = await client.callTool({ name: 'execute_typescript', arguments: { code, waitMs: 50 } });
      const view = started.structuredContent as Json;
      const finished = await client.callTool({
        name: 'get_process',
        arguments: { processId: view.processId, waitMs: 20_000 },
      });
      return { started: view.state as string, text: (started.content as Json)[0].text as string, finished };
    });
    for (const answer of [host, http]) {
      expect(answer.started).not.toBe('idle');
      expect(answer.text).toMatch(/^Process \d+ is still (queued|running)\. Call get_process/);
    }
    expect(host.finished.structuredContent).toMatchObject({ exitState: 'success', output: { late: true } });
    expect(normalized(http.finished)).toEqual(normalized(host.finished));
  });

  it('answers a run waiting for a person alike (its output so far only through the host), and waits through it alike', async () => {
    const { host, http } = await both(async (client) => {
      const started = await client.callTool({ name: 'execute_typescript', arguments: { code: ASKING_CODE } });
      const view = started.structuredContent as Json;
      const looked = await client.callTool({ name: 'get_process', arguments: { processId: view.processId } });
      const waiting = client.callTool({
        name: 'wait_process',
        arguments: { processId: view.processId, timeoutMs: 30_000 },
      });
      await composed.host.approvals.decide(view.approvalId, { decision: 'approve' }, { keyId: null });
      return { view, looked: looked.structuredContent as Json, finished: await waiting };
    });
    for (const answer of [host, http]) {
      expect(answer.view).toMatchObject({
        state: 'waiting',
        approvalUrl: `/ui/approvals/${answer.view.approvalId}`,
      });
      expect(answer.looked).toMatchObject({ state: 'waiting', approvalId: answer.view.approvalId });
    }
    expect(host.view.output).toEqual({ step: 'before' });
    expect(http.view.output).toEqual({});
    expect(host.finished.structuredContent).toMatchObject({
      state: 'idle',
      output: { step: 'after', status: 200 },
      toolCalls: [
        { toolId: 'createOrder', decision: { policy: 'ask', outcome: 'approved', decidedBy: null } },
      ],
    });
    expect(normalized(http.finished)).toEqual(normalized(host.finished));
  });

  it('serves the same resources', async () => {
    for (const uri of ['cyrnel://docs/runtime', 'cyrnel://types', 'cyrnel://tools/shop/getUser/docs']) {
      const { host, http } = await both((client) => client.readResource({ uri }));
      expect(JSON.stringify(host.contents)).not.toBe('[]');
      expect(http, uri).toEqual(host);
    }
    const templates = await both((client) => client.listResourceTemplates());
    expect(templates.http).toEqual(templates.host);
    const resources = await both((client) => client.listResources());
    expect(resources.http).toEqual(resources.host);
  });

  // Last: it changes the catalog the other tests compare.
  it("follows the catalog alike: a service installed, then removed, reaches execute_typescript's description and the client is told", async () => {
    const described = (tools: readonly Tool[]) =>
      tools.find((tool) => tool.name === 'execute_typescript')?.description ?? '';
    // Over HTTP the catalog version is read from GET /tools/version; a server without that route
    // (older) answers 404 there, and its catalog is followed by the description rendered.
    const versionReads = { versioned: 0, older: 0 };
    const clientOf = (kind: keyof typeof versionReads) =>
      createClient({
        baseUrl: 'http://127.0.0.1:9371',
        apiKey: KEY,
        fetch: (input, init) => {
          const request = new Request(input, init);
          const url = new URL(request.url);
          if (url.pathname !== '/tools/version') return Promise.resolve(app.fetch(request));
          versionReads[kind]++;
          if (kind === 'versioned') return Promise.resolve(app.fetch(request));
          // The app's own answer to a route it does not have.
          return Promise.resolve(app.fetch(new Request(new URL('/tools-version-unknown', url), request)));
        },
      });
    const backends = [
      createHostBackend({ host: composed.host }),
      createClientBackend(clientOf('versioned')),
      createClientBackend(clientOf('older')),
    ];
    const followers = await Promise.all(
      backends.map(async (backend) => {
        const watch = createBackendCatalogWatch(backend, { pollMs: 50 });
        const server = await createCyrnelMcpServer(backend, { version: '0.0.0-test', catalogChanges: watch });
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        const waiting: ((tools: Tool[]) => void)[] = [];
        const client = new Client(
          { name: 'backends-follow', version: '1.0.0' },
          {
            listChanged: {
              tools: { debounceMs: 0, onChanged: (_, tools) => waiting.shift()?.(tools ?? []) },
            },
          },
        );
        await client.connect(clientSide);
        clients.push(client);
        const told = () => new Promise<Tool[]>((resolve) => waiting.push(resolve));
        return { watch, told };
      }),
    );
    // Each server has looked at the catalog once (its listener and this one are told in one look):
    // what it follows from then on is a change.
    await Promise.all(
      followers.map(
        ({ watch }) =>
          new Promise<void>((resolve) => {
            const off = watch.subscribe(() => {
              off();
              resolve();
            });
          }),
      ),
    );
    try {
      let told = followers.map((follower) => follower.told());
      await http.services.install({
        id: 'market',
        adapter: 'openapi',
        definition: askingShopSpec(upstream.url),
        secrets: { shopKey: UPSTREAM_KEY },
        enabled: true,
      });
      for (const tools of await Promise.all(told)) expect(described(tools)).toContain('- market:');
      told = followers.map((follower) => follower.told());
      await http.services.delete('market');
      for (const tools of await Promise.all(told)) expect(described(tools)).not.toContain('- market:');
      // The versioned bridge read the version at every look; the older one asked once.
      expect(versionReads.versioned).toBeGreaterThan(2);
      expect(versionReads.older).toBe(1);
    } finally {
      for (const { watch } of followers) watch.close();
    }
  });
});
