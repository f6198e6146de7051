import { Client, type ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { type Json, parseSse, useShopServer } from './helpers';

const KEY = 'mcp-protocol-admin-key';
const APP = 'https://app.example.com';
const MODERN = '2026-07-28';

/** The params of a 2026-07-28 request: its own envelope. */
const envelope = (params: Record<string, unknown> = {}) => ({
  ...params,
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  },
});

/** A JSON-RPC error as every refusal must be: a code, one short line, no report or stack. */
function expectRefusal(answer: Json, code: number, message: RegExp): void {
  expect(answer.jsonrpc).toBe('2.0');
  expect(answer.error.code).toBe(code);
  expect(answer.error.message).toMatch(message);
  expect(answer.error.message.length).toBeLessThanOrEqual(200);
  expect(answer.error.message).not.toMatch(/\n|[[{]|\bat\s/);
}

// Clients' SDKs cannot send most of what is refused here: raw JSON-RPC over HTTP stands in for a
// hand-written or broken client, the official clients (v2 and 1.x) for what they can send.
describe('/mcp refuses what it cannot serve as JSON-RPC errors, and answers browsers of allowed origins', () => {
  const shop = useShopServer({ apiKey: KEY, allowedOrigins: [APP] });
  const clients: { close(): Promise<void> }[] = [];

  /** POST a body to /mcp with the key; the JSON-RPC messages answered (from JSON or SSE). */
  const rpc = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${shop.url()}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const messages: Json[] = response.headers.get('content-type')?.includes('text/event-stream')
      ? parseSse(text).map((event) => event.data)
      : [JSON.parse(text)].flat();
    return { status: response.status, messages };
  };

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
  });

  it('answers invalid params -32602 in one line, over both protocol eras', async () => {
    const legacy = { 'mcp-protocol-version': '2025-06-18' };
    const cases: [unknown, Record<string, string>, RegExp][] = [
      [{ method: 'initialize', params: {} }, {}, /^Invalid params of initialize: protocolVersion: /],
      [{ method: 'initialize' }, {}, /^Invalid params of initialize: params: expected object/],
      [
        { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } },
        {},
        /^Invalid params of initialize: clientInfo: /,
      ],
      [{ method: 'resources/read', params: {} }, legacy, /^Invalid params of resources\/read: uri: /],
      [{ method: 'tools/call', params: {} }, legacy, /^Invalid params of tools\/call: name: /],
      [
        { method: 'tools/call', params: { name: 'search_tools', arguments: 'query' } },
        legacy,
        /^Invalid params of tools\/call: arguments: /,
      ],
      [{ method: 'ping', params: [] }, legacy, /^Invalid params of ping: params: /],
      [
        { method: 'resources/read', params: envelope() },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'resources/read' },
        /^Invalid params of resources\/read: uri: /,
      ],
    ];
    for (const [request, headers, message] of cases) {
      const { messages } = await rpc({ jsonrpc: '2.0', id: 7, ...(request as object) }, headers);
      expect(messages, JSON.stringify(request)).toHaveLength(1);
      expect(messages[0].id).toBe(7);
      expectRefusal(messages[0], -32602, message);
    }
  });

  it('refuses a cursor it never gave, and the docs of a tool that does not exist, to the official clients (-32602)', async () => {
    const modern = new Client({ name: 'protocol', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    const legacy = new Client({ name: 'protocol', version: '1' });
    const v1 = new ClientV1({ name: 'protocol', version: '1' });
    const headers = { authorization: `Bearer ${KEY}` };
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(`${shop.url()}/mcp`), { requestInit: { headers } }),
    );
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(`${shop.url()}/mcp`), { requestInit: { headers } }),
    );
    await v1.connect(new TransportV1(new URL(`${shop.url()}/mcp`), { requestInit: { headers } }));
    clients.push(modern, legacy, v1);
    for (const client of [modern, legacy, v1] as Client[]) {
      const refusals = [
        client.listTools({ cursor: 'page-2' }),
        client.listResources({ cursor: 'page-2' }),
        client.listResourceTemplates({ cursor: 'page-2' }),
        client.readResource({ uri: 'cyrnel://tools/nope/nothing/docs' }),
        client.readResource({ uri: 'cyrnel://tools/shop/nothing/docs' }),
      ];
      for (const refused of refusals) {
        const error = (await refused.then(
          () => undefined,
          (thrown: unknown) => thrown,
        )) as ProtocolError;
        expect(error?.code).toBe(-32602);
        expect(error.message).not.toContain('\n');
      }
      // Still answered: the first page (the only one), and the docs of a tool that exists.
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('execute_typescript');
      const docs = await client.readResource({ uri: 'cyrnel://tools/shop/getUser/docs' });
      expect(JSON.stringify(docs.contents)).toContain('getUser');
    }
  });

  it('refuses batches where the protocol version removed them (2025-06-18 on), serves them for 2025-03-26', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    for (const version of ['2025-06-18', '2025-11-25', MODERN]) {
      const refused = await rpc(batch, { 'mcp-protocol-version': version });
      expect(refused.status, version).toBe(400);
      expect(refused.messages[0].id).toBeNull();
      expectRefusal(refused.messages[0], -32600, /batches are not supported in protocol version/);
    }
    // No MCP-Protocol-Version: a 2025-03-26 client, whose batches are answered request by request.
    for (const headers of [{}, { 'mcp-protocol-version': '2025-03-26' }] as Record<string, string>[]) {
      const served = await rpc(batch, headers);
      expect(served.status).toBe(200);
      expect(served.messages.map((message: Json) => message.id).sort()).toEqual([1, 2]);
      const listed = served.messages.find((message: Json) => message.id === 2).result.tools;
      expect(listed.map((tool: Json) => tool.name)).toContain('execute_typescript');
    }
    const initializing = await rpc([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
    ]);
    expect(initializing.status).toBe(400);
    expectRefusal(initializing.messages[0], -32600, /initialize may not be part of a batch/);
    expectRefusal((await rpc([])).messages[0], -32600, /an empty batch/);
    // One invalid request: every request of the batch answered, none run.
    const mixed = await rpc([batch[0], { jsonrpc: '2.0', id: 3, method: 'resources/read', params: {} }]);
    expectRefusal(
      mixed.messages.find((message: Json) => message.id === 3),
      -32602,
      /uri/,
    );
    expectRefusal(
      mixed.messages.find((message: Json) => message.id === 1),
      -32600,
      /not run/,
    );
  });

  it('answers the CORS preflight of an allowed origin and lets it read the MCP headers; another origin gets no CORS header', async () => {
    const preflight = (origin: string) =>
      fetch(`${shop.url()}/mcp`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers':
            'authorization, content-type, mcp-protocol-version, mcp-session-id',
        },
      });
    const allowed = await preflight(APP);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(allowed.headers.get('access-control-allow-methods')).toMatch(/POST/);
    const allowHeaders = allowed.headers.get('access-control-allow-headers')?.toLowerCase() ?? '';
    for (const header of [
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
      'authorization',
      'content-type',
    ])
      expect(allowHeaders.split(', ')).toContain(header);

    const call = await fetch(`${shop.url()}/mcp`, {
      method: 'POST',
      headers: {
        origin: APP,
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe(APP);
    const exposed = call.headers.get('access-control-expose-headers')?.toLowerCase().split(', ') ?? [];
    expect(exposed).toEqual(expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version']));
    expect(call.headers.get('vary')).toMatch(/Origin/);
    await call.text();
    // Without the key: the 401 (and its challenge) readable by the page too.
    const anonymous = await fetch(`${shop.url()}/mcp`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('access-control-allow-origin')).toBe(APP);

    const foreign = await preflight('https://evil.example.com');
    const foreignCall = await fetch(`${shop.url()}/mcp`, {
      method: 'POST',
      headers: {
        origin: 'https://evil.example.com',
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(foreignCall.status).toBe(403);
    for (const answer of [foreign, foreignCall])
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
