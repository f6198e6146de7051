import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

const KEY = 'mcp-admin-key';
const TOOLS = [
  'check_typescript',
  'execute_typescript',
  'get_process',
  'get_tool_types',
  'search_tools',
  'wait_process',
];

describe('the MCP endpoint /mcp under hostile bodies', () => {
  const { url } = useServer({ apiKey: KEY });

  it('bounds bodies before the MCP layer: too large 413 (the API error), too deep or not JSON 400 (JSON-RPC errors)', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${KEY}`,
    };
    const post = async (body: string) => {
      const res = await fetch(`${url()}/mcp`, { method: 'POST', headers, body });
      return {
        status: res.status,
        body: (await res.json()) as { error?: { code: number; message: string } },
      };
    };
    // Refused on the main thread before anything parses them: /health keeps answering meanwhile.
    const [huge, deep, broken, wide] = await expectHealthDuring(
      '/health while /mcp refuses hostile bodies',
      url(),
      async () => [
        // The default code limit is 100 KiB: the body may be 6 × that + 64 KiB.
        await post(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'execute_typescript', arguments: { code: 'x'.repeat(700 * 1024) } },
          }),
        ),
        await post(
          `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
        ),
        await post('{"jsonrpc":"2.0",'),
        await post(
          `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":[${'0,'.repeat(100_000)}0]}}`,
        ),
      ],
    );
    expect(huge?.status).toBe(413);
    expect(huge?.body).toMatchObject({
      reason: 'payload_too_large',
      error: expect.stringContaining('larger than'),
    });
    expect(deep?.status).toBe(400);
    expect(deep?.body.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('nested deeper'),
    });
    expect(broken?.status).toBe(400);
    expect(broken?.body.error).toMatchObject({ code: -32700 });
    expect(wide?.status).toBe(400);
    expect(wide?.body.error).toMatchObject({ code: -32600, message: expect.stringContaining('elements') });
    // The server still answers a well-formed request afterwards.
    const client = new Client(
      { name: 'cyrnel-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url()}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    } finally {
      await client.close();
    }
  });
});
