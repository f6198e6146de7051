import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { type Json, useShopServer } from './helpers';

const KEY = 'mcp-admin-key';
const TOOLS = [
  'check_typescript',
  'execute_typescript',
  'get_process',
  'get_tool_types',
  'search_tools',
  'wait_process',
];

const CODE = `
const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
const orders = await cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 7 } });
cyrnel.output({ name: user.body.name, orderCount: orders.body.length });
`;

describe('the MCP endpoint /mcp', () => {
  const shop = useShopServer({ apiKey: KEY });
  const clients: Client[] = [];

  /** A connected official MCP client: `modern` negotiates the current revision, `legacy` the 2025 handshake. */
  const connect = async (era: 'modern' | 'legacy', key = KEY) => {
    const client = new Client(
      { name: 'cyrnel-test', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${shop.url()}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
  });

  for (const era of ['modern', 'legacy'] as const) {
    describe(`${era} protocol`, () => {
      it('lists exactly the six tools, with object input schemas and the workflow in its instructions', async () => {
        const client = await connect(era);
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
        for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
        const execute = tools.find((tool) => tool.name === 'execute_typescript');
        expect(execute?.description).toContain('cyrnel.output');
        // Two tools: their declarations are in the description itself.
        expect(execute?.description).toContain('shop: Shop');
        expect(execute?.description).toContain('getUser');
        expect(client.getInstructions()).toContain('search_tools');
      });

      it('searches, types and runs code that calls two tools', async () => {
        const client = await connect(era);
        const search = await client.callTool({
          name: 'search_tools',
          arguments: { query: 'orders of a user' },
        });
        expect((search.structuredContent as Json).tools[0]).toMatchObject({ tool: 'shop.listOrders' });
        const types = await client.callTool({
          name: 'get_tool_types',
          arguments: { tools: ['shop.getUser', 'shop.nope'] },
        });
        expect((types.structuredContent as Json).unknown).toEqual(['shop.nope']);
        expect((types.structuredContent as Json).declarations).toContain('getUser');
        const run = await client.callTool({ name: 'execute_typescript', arguments: { code: CODE } });
        expect(run.isError).toBeFalsy();
        expect(run.structuredContent).toMatchObject({
          state: 'idle',
          exitState: 'success',
          output: { name: 'user-7', orderCount: 2 },
          toolCalls: [
            { serviceId: 'shop', toolId: 'getUser', ok: true },
            { serviceId: 'shop', toolId: 'listOrders', ok: true },
          ],
        });
        expect((run.content as Json)[0].text).toContain('finished: success');
      });
    });
  }

  it('answers a long run as running, then get_process waits for it', async () => {
    const client = await connect('modern');
    const started = await client.callTool({
      name: 'execute_typescript',
      arguments: {
        code: 'await new Promise((r) => setTimeout(r, 1500)); cyrnel.output({ done: true });',
        waitMs: 50,
      },
    });
    const view = started.structuredContent as Json;
    expect(view.state).not.toBe('idle');
    expect(started.isError).toBeFalsy();
    expect((started.content as Json)[0].text).toContain('get_process');
    const later = await client.callTool({
      name: 'get_process',
      arguments: { processId: view.processId, waitMs: 20_000 },
    });
    expect(later.structuredContent).toMatchObject({
      processId: view.processId,
      exitState: 'success',
      output: { done: true },
    });
  });

  it('reports a failed run as an error result', async () => {
    const client = await connect('modern');
    const failed = await client.callTool({
      name: 'execute_typescript',
      arguments: { code: 'throw new Error("nope")' },
    });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ exitState: 'failed' });
  });

  it('sends a progress notification per finished tool call', async () => {
    const client = await connect('modern');
    const progress: number[] = [];
    const run = await client.callTool(
      {
        name: 'execute_typescript',
        arguments: {
          code: `${CODE}\nawait new Promise((r) => setTimeout(r, 400));`,
        },
      },
      { onprogress: (event) => void progress.push(event.progress) },
    );
    expect(run.structuredContent).toMatchObject({ exitState: 'success' });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(2);
  });

  // A 2026-07-28 client cancels by dropping the call's request; a 2025-era one sends
  // notifications/cancelled in a request of its own (mcp-cancel.test.ts).
  it('kills the process of a cancelled request', async () => {
    const client = await connect('modern');
    const controller = new AbortController();
    const call = client
      .callTool(
        {
          name: 'execute_typescript',
          arguments: { code: 'await new Promise((r) => setTimeout(r, 30_000));', timeoutMs: 60_000 },
        },
        { signal: controller.signal },
      )
      .catch((error: unknown) => error);
    let running: Json;
    for (let i = 0; i < 100 && !running; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      running = (await shop.api('GET', '/processes?state=running')).body.items[0];
    }
    expect(running).toBeDefined();
    controller.abort();
    await call;
    let record: Json;
    for (let i = 0; i < 100; i++) {
      record = (await shop.api('GET', `/processes/${running.id}`)).body;
      if (record.state === 'idle') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(record).toMatchObject({ state: 'idle', exitState: 'canceled' });
  });

  it('names only functions the sandbox has: every cyrnel.…( the descriptions, instructions and runtime docs mention', async () => {
    const client = await connect('modern');
    const { tools } = await client.listTools();
    const docs = await client.readResource({ uri: 'cyrnel://docs/runtime' });
    const texts = [
      client.getInstructions() ?? '',
      JSON.stringify(docs.contents),
      ...tools.flatMap((tool) => [
        tool.description ?? '',
        ...Object.values(tool.inputSchema.properties ?? {}).map(
          (property) => (property as Json).description ?? '',
        ),
      ]),
    ];
    // `cyrnel.discover.tool(`, `cyrnel.services.<serviceId>.tools.<toolId>.invoke(`…
    const mentioned = [
      ...new Set(
        texts.flatMap((text) =>
          [...text.matchAll(/cyrnel(?:\.(?:[A-Za-z_$][\w$]*|<[^<>]+>))+(?=\()/g)].map((match) => match[0]),
        ),
      ),
    ];
    expect(mentioned).toEqual(expect.arrayContaining(['cyrnel.output', 'cyrnel.discover.tool']));
    // Looked up in the sandbox's own globals; a <placeholder> is any name (services and tools
    // are found by name at run time).
    const code = `const missing = ${JSON.stringify(mentioned)}.filter((path) => {
      let value = globalThis;
      for (const key of path.split('.')) value = value == null ? undefined : value[key.startsWith('<') ? 'anyName' : key];
      return typeof value !== 'function';
    });
    cyrnel.output({ missing });`;
    const run = await client.callTool({ name: 'execute_typescript', arguments: { code } });
    expect(run.structuredContent).toMatchObject({ exitState: 'success', output: { missing: [] } });
  });

  it('names the field of invalid arguments', async () => {
    const client = await connect('modern');
    const outcome = await client.callTool({ name: 'execute_typescript', arguments: { code: 42 } }).then(
      (result) => JSON.stringify(result.content),
      (error: unknown) => String(error),
    );
    expect(outcome).toContain('code');
  });

  it('refuses requests without the key (401, WWW-Authenticate) and from a foreign Origin (403)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const anonymous = await fetch(`${shop.url()}/mcp`, { method: 'POST', headers, body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const foreign = await fetch(`${shop.url()}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${KEY}`, origin: 'https://evil.example' },
      body,
    });
    expect(foreign.status).toBe(403);
    await expect(connect('modern', 'wrong-key')).rejects.toThrow();
  });
});
