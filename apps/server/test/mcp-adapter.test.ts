import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type Json, tempDir, useShopServer } from './helpers';

const KEY = 'mcp-adapter-key';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = join(ROOT, 'packages/adapter-mcp/test/fixtures/fixture-server.mjs');
const MEMORY = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

describe('MCP servers as services, through the HTTP API', () => {
  const shop = useShopServer({ apiKey: KEY });

  const run = async (code: string) => {
    const response = await shop.api('POST', '/processes', { code, wait: true, timeoutMs: 30_000 });
    expect(response.status).toBe(201);
    return response.body as { exitState: string; error: string | null; output: Json; stderr: string };
  };
  const stdio = (file: string, env: Record<string, string> = {}) =>
    JSON.stringify({ transport: 'stdio', command: process.execPath, args: [file], env });

  it('refuses a stdio server until the operator allows its command in the module config', async () => {
    const refused = await shop.api('POST', '/services', {
      id: 'memory',
      adapter: 'mcp',
      definition: stdio(MEMORY),
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      reason: 'forbidden',
      error: expect.stringContaining('allowedCommands'),
    });
    const allowed = await shop.api('PATCH', '/modules/mcp/config', [
      { op: 'add', path: '/allowedCommands', value: [process.execPath] },
    ]);
    expect(allowed.status).toBe(200);
  });

  it('runs one program that calls an OpenAPI service and an MCP server (server-memory) together', async () => {
    const memoryDir = await tempDir('cyrnel-memory-');
    onTestFinished(() => memoryDir.remove());
    const installed = await shop.api('POST', '/services', {
      id: 'memory',
      adapter: 'mcp',
      definition: stdio(MEMORY, { MEMORY_FILE_PATH: join(memoryDir.path, 'memory.jsonl') }),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({ adapter: 'mcp', enabled: true });
    // The server lists the tools it listed at install: a refresh right away changes nothing.
    const refreshed = await shop.api('POST', '/services/memory/refresh');
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body).toMatchObject({
      changed: false,
      service: { id: 'memory', hash: (installed.body as { hash: string }).hash },
    });
    const result = await run(`
      const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
      const orders = await cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 7 } });
      await cyrnel.services.memory.tools.create_entities.invoke({ entities: [
        { name: user.body.name, entityType: 'customer', observations: [orders.body.length + ' orders'] },
        { name: 'Shop', entityType: 'company', observations: [] },
      ] });
      await cyrnel.services.memory.tools.create_relations.invoke({
        relations: [{ from: user.body.name, to: 'Shop', relationType: 'buys from' }],
      });
      const graph = await cyrnel.services.memory.tools.read_graph.invoke({});
      cyrnel.output({ entities: graph.entities.map((e) => e.name).sort(), relations: graph.relations });
    `);
    expect(result).toMatchObject({ exitState: 'success' });
    expect(result.output).toMatchObject({
      entities: expect.arrayContaining(['Shop']),
      relations: [{ to: 'Shop', relationType: 'buys from' }],
    });
    // The declarations agents read type MCP tools from their schemas.
    const types = await shop.api('GET', '/environment/types?tools=memory.create_entities');
    expect(types.text).toContain('create_entities');
    expect(types.text).toContain('entityType');
  });

  it('fails a call clearly when the MCP server dies mid-run, and the next call of the same run works', async () => {
    const installed = await shop.api('POST', '/services', {
      id: 'fx',
      adapter: 'mcp',
      definition: stdio(FIXTURE),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    const result = await run(`
      const first = await cyrnel.services.fx.tools.pid.invoke({});
      let failure;
      try {
        await cyrnel.services.fx.tools.crash.invoke({});
      } catch (error) {
        failure = { reason: error.reason, message: error.message };
      }
      const second = await cyrnel.services.fx.tools.pid.invoke({});
      cyrnel.output({ failure, restarted: first.pid !== second.pid });
    `);
    expect(result).toMatchObject({ exitState: 'success' });
    expect(result.output).toMatchObject({
      failure: {
        reason: 'upstream_crashed',
        message: expect.stringContaining('MCP server of service fx exited'),
      },
      restarted: true,
    });
  });

  it('follows tools/list_changed: a tool added at run time appears, and flags of the others survive', async () => {
    const disabled = await shop.api('POST', '/tools/fx/fail/enabled', { enabled: false });
    expect(disabled.status).toBe(200);
    const result = await run('cyrnel.output({ added: await cyrnel.services.fx.tools.add_tool.invoke({}) });');
    expect(result).toMatchObject({ exitState: 'success', output: { added: 'added' } });
    let tools: { id: string; enabled: boolean }[] = [];
    for (let tries = 0; tries < 100 && !tools.some((tool) => tool.id === 'late_tool'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      tools = (
        await shop.api<{ items: { id: string; enabled: boolean }[] }>('GET', '/tools?serviceId=fx&limit=100')
      ).body.items;
    }
    expect(tools.find((tool) => tool.id === 'late_tool')).toMatchObject({ enabled: true });
    expect(tools.find((tool) => tool.id === 'fail')).toMatchObject({ enabled: false });
    const late = await run('cyrnel.output({ late: await cyrnel.services.fx.tools.late_tool.invoke({}) });');
    expect(late.output).toEqual({ late: 'late' });
    // Asked again, the server lists the same tools: nothing changes.
    const refreshed = await shop.api('POST', '/services/fx/refresh');
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ changed: false, service: { id: 'fx' } });
  });

  it('answers a refresh of a service whose adapter cannot list tools again with 409', async () => {
    const refused = await shop.api('POST', '/services/shop/refresh', {});
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ reason: 'refresh_not_supported' });
  });
});
