import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startTokenUpstream, type TokenUpstream } from '@cyrnel/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/create-logger';
import type { RunningServer } from '../src/index';
import {
  adapterManifest,
  apiClient,
  type Json,
  manyToolsSpec,
  shopSpec,
  startTestServer,
  startUpstream,
  tempDir,
  UPSTREAM_KEY,
  type Upstream,
  writeModule,
} from './helpers';
import { listPages, NAMES_ADAPTER, textOf, toolsClient, toolsClientV1 } from './mcp-tools-helpers';

const KEY = 'mcp-tools-admin';
const MEMORY = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const LONG = `t${'x'.repeat(125)}`;

describe('direct tools at /mcp/tools', () => {
  let server: RunningServer;
  let upstream: Upstream;
  let who: TokenUpstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;
  let agent: { id: string; key: string };
  const logs: string[] = [];
  const clients: { close(): Promise<void> }[] = [];
  const connect = async (key = KEY, era: 'modern' | 'legacy' = 'modern') => {
    const client = await toolsClient(server.url, key, era);
    clients.push(client);
    return client;
  };
  // Page by page: the v2 client's listTools() without a cursor walks every page itself.
  const pagesOf = (client: Client) =>
    listPages((cursor) =>
      client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }),
    );

  beforeAll(async () => {
    dir = await tempDir();
    upstream = await startUpstream();
    who = await startTokenUpstream();
    await writeModule(dir.path, 'names', adapterManifest('names'), NAMES_ADAPTER);
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      urlAllowCidrs: ['127.0.0.1/32'],
      logger: createLogger({ level: 'warn', write: (line) => logs.push(line) }),
    });
    api = apiClient(server.url, KEY);
    const install = async (body: Json) => {
      const installed = await api('POST', '/services', { enabled: true, ...body });
      expect(installed.status, installed.text).toBe(201);
    };
    await install({
      id: 'shop',
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(upstream.url)),
      secrets: { shopKey: UPSTREAM_KEY },
    });
    const allowed = await api('PATCH', '/modules/mcp/config', [
      { op: 'add', path: '/allowedCommands', value: [process.execPath] },
    ]);
    expect(allowed.status).toBe(200);
    await install({
      id: 'memory',
      adapter: 'mcp',
      definition: JSON.stringify({
        transport: 'stdio',
        command: process.execPath,
        args: [MEMORY],
        env: { MEMORY_FILE_PATH: join(dir.path, 'memory.jsonl') },
      }),
    });
    // Names that collide (x__y__z twice), are too long, or hold a `$`.
    await install({ id: 'x', adapter: 'names', definition: JSON.stringify(['y__z', 'ok', 'pay$', LONG]) });
    await install({ id: 'x__y', adapter: 'names', definition: JSON.stringify(['z']) });
    await install({ id: 'things', adapter: 'openapi', definition: JSON.stringify(manyToolsSpec(120)) });
    // The shop with a key its upstream refuses: its 401 is no answer the shop documents.
    await install({
      id: 'locked',
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(upstream.url)),
      secrets: { shopKey: 'not-the-key' },
    });
    await install({
      id: 'who',
      adapter: 'openapi',
      definition: JSON.stringify(who.spec()),
      secrets: { token: 'shared-token' },
    });
    agent = (await api('POST', '/keys', { name: 'agent', role: 'agent' })).body;
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.close();
    await upstream?.close();
    await who?.close();
    await dir?.remove();
  });

  it('lists every callable tool as <service>__<tool>, page by page, with schemas and annotations', async () => {
    const client = await connect(agent.key);
    const { tools, pages } = await pagesOf(client);
    expect(pages).toBeGreaterThan(1);
    const names = tools.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining(['shop__getUser', 'shop__listOrders', 'memory__read_graph', 'x__ok']),
    );
    expect(names.filter((name) => name.startsWith('things__'))).toHaveLength(120);
    const getUser = tools.find((tool) => tool.name === 'shop__getUser') as Json;
    expect(getUser).toMatchObject({
      title: 'Get a user',
      inputSchema: { type: 'object', properties: { path: { type: 'object' } } },
      outputSchema: { type: 'object', oneOf: [expect.objectContaining({ type: 'object' })] },
      annotations: { readOnlyHint: true },
    });
    // The shared schema it reaches (User) travels with it.
    expect(JSON.stringify(getUser.outputSchema)).toContain('"$defs"');
    const readGraph = tools.find((tool) => tool.name === 'memory__read_graph') as Json;
    expect(readGraph.annotations).toMatchObject({ readOnlyHint: true });
    expect(readGraph.description).toBeTruthy();
  });

  it('leaves out, and logs, the names that collide or break MCP rules, never renaming one', async () => {
    const client = await connect(agent.key);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('x__ok');
    for (const name of ['x__y__z', 'x__pay$', `x__${LONG}`]) expect(names).not.toContain(name);
    expect(names.filter((name) => name.startsWith('x__y'))).toEqual([]);
    const log = logs.join('\n');
    expect(log).toContain(
      'x.y__z is not offered as a direct tool: its name x__y__z is also the name of x__y.z',
    );
    expect(log).toContain(
      'x__y.z is not offered as a direct tool: its name x__y__z is also the name of x.y__z',
    );
    expect(log).toContain('x.pay$ is not offered as a direct tool');
    expect(log).toContain(`x.${LONG} is not offered as a direct tool: its name is 129 characters long`);
    const unknown = await client
      .callTool({ name: 'x__y__z', arguments: { text: 'a' } })
      .catch((error) => error);
    expect(unknown).toMatchObject({ code: -32602 });
  });

  it('refuses a cursor it did not answer with -32602', async () => {
    const client = await connect(agent.key);
    await expect(client.listTools({ cursor: 'bm90LW91cnM' })).rejects.toMatchObject({ code: -32602 });
    const raw = await fetch(`${server.url}/mcp/tools`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: { cursor: '%%%' } }),
    });
    const text = await raw.text();
    expect(text).toContain('-32602');
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`calls an OpenAPI tool against the real upstream and an MCP server's tool (${era})`, async () => {
      const client = await connect(agent.key, era);
      const user = await client.callTool({ name: 'shop__getUser', arguments: { path: { id: 7 } } });
      expect(user.isError).toBeFalsy();
      expect(user.structuredContent).toMatchObject({ status: 200, body: { id: 7, name: 'user-7' } });
      expect(JSON.parse(textOf(user))).toMatchObject({ body: { name: 'user-7' } });
      const created = await client.callTool({
        name: 'memory__create_entities',
        arguments: { entities: [{ name: `Ada-${era}`, entityType: 'person', observations: ['direct'] }] },
      });
      expect(created.isError, textOf(created)).toBeFalsy();
      const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
      expect(JSON.stringify(graph.structuredContent ?? textOf(graph))).toContain(`Ada-${era}`);
      const echoed = await client.callTool({ name: 'x__ok', arguments: { text: 'hi' } });
      expect(echoed.structuredContent).toEqual({ echoed: 'hi' });
    });
  }

  it('answers a refused call as an isError result with the stable reason', async () => {
    const client = await connect(agent.key);
    const invalid = await client.callTool({ name: 'shop__getUser', arguments: { path: { id: 'seven' } } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/^invalid_parameters: /);
    expect(invalid._meta).toMatchObject({ 'cyrnel/reason': 'invalid_parameters' });
  });

  it("answers a result outside the tool's output schema as an error, the result as text", async () => {
    const client = await connect(agent.key);
    const refused = await client.callTool({ name: 'locked__getUser', arguments: { path: { id: 1 } } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toBeUndefined();
    expect(refused._meta).toMatchObject({ 'cyrnel/reason': 'upstream_failed' });
    expect(textOf(refused)).toContain('outside its output schema');
    expect(textOf(refused)).toContain('"status":401');
  });

  it("calls with the caller's principal's own connection, and others with the shared one", async () => {
    const person = await api('POST', '/principals', { name: 'Alice' });
    const key = await api('POST', '/keys', {
      name: "Alice's agent",
      role: 'agent',
      principal: person.body.id,
    });
    expect(key.status, key.text).toBe(201);
    const own = await apiClient(server.url, key.body.key)('POST', '/services/who/connections', {
      name: 'alice',
      secrets: { token: 'alice-token' },
    });
    expect(own.status, own.text).toBe(201);
    const alice = await connect(key.body.key);
    // The upstream answers a body its description leaves out: the call is made (and audited as
    // ok), its result comes as text in an error result (see the test above).
    const mine = await alice.callTool({ name: 'who__whoami', arguments: { query: { who: 'alice' } } });
    const other = await connect(agent.key);
    await other.callTool({ name: 'who__whoami', arguments: { query: { who: 'agent' } } });
    expect(who.seen).toEqual([
      { who: 'alice', token: 'alice-token' },
      { who: 'agent', token: 'shared-token' },
    ]);
    const processId = (mine._meta as Json)['cyrnel/processId'];
    expect((await api('GET', `/processes/${processId}`)).body).toMatchObject({ principalId: person.body.id });
    const calls = await api('GET', `/processes/${processId}/calls`);
    expect(calls.body.items).toEqual([expect.objectContaining({ toolId: 'whoami', ok: true })]);
  });

  it('records each call as a process of one call under the caller key, listed by its ref', async () => {
    const client = await connect(agent.key);
    const result = await client.callTool({ name: 'shop__listOrders', arguments: { query: { userId: 3 } } });
    const processId = (result._meta as Json)['cyrnel/processId'];
    expect(processId).toBeGreaterThan(0);
    const record = await api('GET', `/processes/${processId}`);
    expect(record.body).toMatchObject({ ref: 'mcp-tools', keyId: agent.id, exitState: 'success' });
    const calls = await api('GET', `/processes/${processId}/calls`);
    expect(calls.body.items).toEqual([
      expect.objectContaining({
        serviceId: 'shop',
        toolId: 'listOrders',
        ok: true,
        decision: expect.anything(),
      }),
    ]);
    expect(upstream.requests).toContain('GET /orders?userId=3');
    const listed = await api('GET', `/processes?ref=mcp-tools&limit=100`);
    expect(listed.body.items.map((item: Json) => item.id)).toContain(processId);
    // The agent sees its own process, as on /processes.
    const own = await apiClient(server.url, agent.key)('GET', `/processes/${processId}`);
    expect(own.status).toBe(200);
  });

  it('shows a key scoped to one service only its tools; another tool is refused as out of scope', async () => {
    const scoped = await api('POST', '/keys', {
      name: 'shop only',
      role: 'agent',
      scope: { services: ['shop'] },
    });
    expect(scoped.status).toBe(201);
    const client = await connect(scoped.body.key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['shop__getUser', 'shop__listOrders']);
    const refused = await client.callTool({ name: 'x__ok', arguments: { text: 'no' } });
    expect(refused.isError).toBe(true);
    expect(refused._meta).toMatchObject({ 'cyrnel/reason': 'tool_blocked' });
  });

  it('serves a 1.x client: the listing (first page), a call, structured output it validates', async () => {
    const client = await toolsClientV1(server.url, agent.key);
    clients.push(client);
    const first = await client.listTools();
    expect(first.nextCursor).toBeTruthy();
    const { tools } = await listPages((cursor) =>
      client.listTools(cursor === undefined ? undefined : { cursor }),
    );
    expect(tools.map((tool) => tool.name)).toContain('shop__getUser');
    const user = await client.callTool({ name: 'shop__getUser', arguments: { path: { id: 4 } } });
    expect(user.structuredContent).toMatchObject({ status: 200, body: { name: 'user-4' } });
  });

  it('takes the same key, Host and Origin checks as /mcp', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const anonymous = await fetch(`${server.url}/mcp/tools`, { method: 'POST', headers, body });
    expect(anonymous.status).toBe(401);
    const foreign = await fetch(`${server.url}/mcp/tools`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${agent.key}`, origin: 'https://evil.example' },
      body,
    });
    expect(foreign.status).toBe(403);
  });
});
