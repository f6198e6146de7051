import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createOutboundPolicy } from '@cyrnel/core';
import { type AdapterModule, isJsonText } from '@cyrnel/sdk';
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { EVERYTHING, install, setUpAdapter } from './harness';

const adapters: AdapterModule[] = [];
afterEach(async () => {
  for (const adapter of adapters.splice(0)) await adapter.teardown();
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('server-everything over Streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('server-everything did not start')), 30_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  });
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('lists its tools and calls them: text, structured content and an image', async () => {
    const { adapter } = await setUpAdapter({
      outbound: createOutboundPolicy({ allowPrivateUrls: true }),
    });
    adapters.push(adapter);
    const definition = await install(adapter, 'everything', JSON.stringify({ transport: 'http', url }));
    const ids = definition.tools.map((tool) => tool.id);
    expect(ids).toEqual(
      expect.arrayContaining(['echo', 'get_sum', 'get_tiny_image', 'get_structured_content']),
    );
    const call = (toolId: string, parameters: Record<string, unknown>) =>
      adapter.invoke({ serviceId: 'everything', toolId, parameters });
    expect(await call('echo', { message: 'hi' })).toBe('Echo: hi');
    expect(await call('get_sum', { a: 2, b: 40 })).toMatch(/42/);
    expect(await call('get_structured_content', { location: 'New York' })).toMatchObject({
      temperature: expect.any(Number),
    });
    const image = (await call('get_tiny_image', {})) as { type: string; mimeType?: string }[];
    expect(image.some((item) => item.type === 'image' && item.mimeType === 'image/png')).toBe(true);
  });

  it('refuses a private address unless the outbound policy allows it', async () => {
    const { adapter } = await setUpAdapter({ outbound: createOutboundPolicy({}) });
    adapters.push(adapter);
    await expect(
      adapter.generateDefinition(JSON.stringify({ transport: 'http', url })),
    ).rejects.toMatchObject({
      reason: 'outbound_refused',
    });
  });
});

describe('an HTTP MCP server that needs a token', () => {
  let server: ReturnType<typeof serve>;
  let url: string;
  let requests = 0;
  let accept = 'Bearer good-token';

  beforeAll(async () => {
    const handler = createMcpHandler(() => {
      const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
      mcp.registerTool('whoami', { inputSchema: z.object({}) }, async () => ({
        content: [{ type: 'text', text: '"the token holder"' }],
      }));
      mcp.registerTool('huge', { inputSchema: z.object({}) }, async () => ({
        content: [{ type: 'text', text: 'x'.repeat(17 * 1024 * 1024) }],
      }));
      mcp.registerTool('big', { inputSchema: z.object({ count: z.number() }) }, async ({ count }) => ({
        content: [
          {
            type: 'text',
            text: JSON.stringify(Array.from({ length: count }, (_, id) => ({ id, name: `item ${id}` }))),
          },
        ],
      }));
      mcp.registerTool('deep', { inputSchema: z.object({ depth: z.number() }) }, async ({ depth }) => ({
        content: [{ type: 'text', text: 'x'.repeat(300_000) }],
        structuredContent: { nested: JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) },
      }));
      return mcp;
    });
    server = serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request) => {
        requests++;
        if (request.headers.get('authorization') !== accept) return new Response('no', { status: 401 });
        return handler.fetch(request);
      },
    });
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
  });
  afterAll(() => {
    server?.close();
  });

  const definition = () =>
    JSON.stringify({ transport: 'http', url, headers: { Authorization: `Bearer \${secrets.token}` } });

  it('makes the header placeholder a required secret and sends the stored value', async () => {
    const { adapter } = await setUpAdapter({ outbound: createOutboundPolicy({ allowPrivateUrls: true }) });
    adapters.push(adapter);
    const generated = await install(adapter, 'guarded', definition(), { secrets: { token: 'good-token' } });
    expect(generated.secretsSchema).toMatchObject({
      required: ['token'],
      properties: { token: { type: 'string' } },
    });
    expect(JSON.stringify(generated.adapterDomain)).toContain(`\${secrets.token}`);
    expect(JSON.stringify(generated.adapterDomain)).not.toContain('good-token');
    expect(await adapter.invoke({ serviceId: 'guarded', toolId: 'whoami', parameters: {} })).toBe(
      'the token holder',
    );
  });

  it('answers a refused token with upstream_unauthorized, once, without a retry loop', async () => {
    const { adapter } = await setUpAdapter({ outbound: createOutboundPolicy({ allowPrivateUrls: true }) });
    adapters.push(adapter);
    await install(adapter, 'guarded', definition(), { secrets: { token: 'good-token' } });
    accept = 'Bearer rotated-token';
    try {
      const before = requests;
      await expect(
        adapter.invoke({ serviceId: 'guarded', toolId: 'whoami', parameters: {} }),
      ).rejects.toMatchObject({
        reason: 'upstream_unauthorized',
        message: expect.stringContaining('check the service'),
      });
      // The handshake and at most the call: no loop of reconnects.
      expect(requests - before).toBeLessThanOrEqual(3);
      await expect(
        adapter.generateDefinition(definition(), { config: {}, secrets: { token: 'wrong' } }),
      ).rejects.toMatchObject({ reason: 'upstream_unauthorized' });
    } finally {
      accept = 'Bearer good-token';
    }
  });

  it('fails a call whose answer is larger than 16 MiB instead of holding it all, and keeps working', async () => {
    const { adapter } = await setUpAdapter({ outbound: createOutboundPolicy({ allowPrivateUrls: true }) });
    adapters.push(adapter);
    await install(adapter, 'guarded', definition(), { secrets: { token: 'good-token' } });
    await expect(
      adapter.invoke({ serviceId: 'guarded', toolId: 'huge', parameters: {} }),
    ).rejects.toMatchObject({
      reason: 'upstream_answer_too_large',
      message: expect.stringContaining('larger than 16777216 bytes'),
    });
    expect(await adapter.invoke({ serviceId: 'guarded', toolId: 'whoami', parameters: {} })).toBe(
      'the token holder',
    );
  });

  it('reads a large answer in a worker and hands it on as JSON text; one nested too deep fails alone', async () => {
    const { adapter } = await setUpAdapter({ outbound: createOutboundPolicy({ allowPrivateUrls: true }) });
    adapters.push(adapter);
    await install(adapter, 'guarded', definition(), { secrets: { token: 'good-token' } });
    const call = (toolId: string, parameters: Record<string, unknown>) =>
      adapter.invoke({ serviceId: 'guarded', toolId, parameters });
    const big = await call('big', { count: 50_000 });
    expect(isJsonText(big)).toBe(true);
    const items = JSON.parse((big as { text: string }).text) as { id: number; name: string }[];
    expect(items).toHaveLength(50_000);
    expect(items[49_999]).toEqual({ id: 49_999, name: 'item 49999' });
    await expect(call('deep', { depth: 80 })).rejects.toMatchObject({
      reason: 'upstream_answer_too_large',
      message: expect.stringContaining('deeper than 64'),
    });
    expect(await call('whoami', {})).toBe('the token holder');
  });
});
