import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Json, useShopServer } from './helpers';
import { eventually, LOOP, modernPoster, TASKS_EXTENSION, userCalls } from './mcp-task-helpers';

const KEY = 'mcp-tasks-modern-admin-key';

/** Runs longer than the server waits before answering with a task (2 s). */
const SLOW = 'await new Promise((r) => setTimeout(r, 3000)); cyrnel.output({ slow: true });';

// The Tasks extension of 2026-07-28: the client declares it on each request, the server decides
// per call whether a task or the result answers; results come inline in tasks/get.
describe('long runs as MCP tasks (the 2026-07-28 Tasks extension, /mcp)', () => {
  const shop = useShopServer({ apiKey: KEY });
  let agentKey: string;
  let post: ReturnType<typeof modernPoster>;

  beforeAll(async () => {
    agentKey = (await shop.api('POST', '/keys', { name: 'agent', role: 'agent' })).body.key;
    post = modernPoster(shop.url(), agentKey);
  });

  const execute = (code: string, args: Json = {}, declared?: Json) =>
    post('tools/call', { name: 'execute_typescript', arguments: { code, ...args } }, declared);

  it('advertises the extension in server/discover, and execute_typescript lists no 2025 task support', async () => {
    const client = new Client(
      { name: 'tasks-modern', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${shop.url()}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agentKey}` } },
      }),
    );
    try {
      expect(client.getServerCapabilities()?.extensions).toEqual({ [TASKS_EXTENSION]: {} });
      expect(client.getServerCapabilities()).not.toHaveProperty('tasks');
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'execute_typescript')).not.toHaveProperty('execution');
    } finally {
      await client.close();
    }
  });

  it('answers a quick run with its result, and a long one with a task whose tasks/get inlines the result', async () => {
    const quick = await execute('cyrnel.output({ quick: true })');
    expect(quick.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { output: { quick: true } },
    });

    const started = (await execute(SLOW)).result;
    expect(started).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 7 * 86_400_000,
      pollIntervalMs: 1_000,
    });
    const { taskId } = started;
    expect((await post('tasks/get', { taskId })).result).toMatchObject({
      resultType: 'complete',
      taskId,
      status: 'working',
      createdAt: started.createdAt,
    });
    const ended = await eventually(
      async () => (await post('tasks/get', { taskId })).result,
      (task: Json) => task.status !== 'working',
    );
    expect(ended.status).toBe('completed');
    // The result the tool would have answered, inline.
    const processId = started.structuredContent.processId;
    const tool = (await post('tools/call', { name: 'get_process', arguments: { processId } })).result;
    expect(ended.result.structuredContent).toEqual(tool.structuredContent);
    expect(ended.result.content).toEqual(tool.content);
    expect(ended.result.structuredContent).toMatchObject({ exitState: 'success', output: { slow: true } });
  });

  it('answers a tool error as a completed task (failed is for JSON-RPC errors)', async () => {
    const { taskId } = (
      await execute('await new Promise((r) => setTimeout(r, 2500)); throw new Error("nope");')
    ).result;
    const ended = await eventually(
      async () => (await post('tasks/get', { taskId })).result,
      (task: Json) => task.status !== 'working',
    );
    expect(ended).toMatchObject({
      status: 'completed',
      result: { isError: true, structuredContent: { exitState: 'failed' } },
    });
  });

  it('cancels: tasks/cancel acknowledges, kills the run (no further upstream call), and the task ends cancelled', async () => {
    const { taskId } = (await execute(LOOP, { timeoutMs: 120_000 })).result;
    expect(taskId).toBeDefined();
    const ack = await post('tasks/cancel', { taskId });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const ended = await eventually(
      async () => (await post('tasks/get', { taskId })).result,
      (task: Json) => task.status !== 'working',
    );
    expect(ended.status).toBe('cancelled');
    expect(ended).not.toHaveProperty('result');
    const seen = userCalls(shop.upstream());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(userCalls(shop.upstream())).toBe(seen);
  });

  it('refuses task requests of a client that does not declare the extension, and has no tasks/list or tasks/result', async () => {
    const { taskId } = (await execute(SLOW)).result;
    for (const method of ['tasks/get', 'tasks/cancel'])
      expect((await post(method, { taskId }, {})).error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });
    expect((await post('tasks/list', {})).error.code).toBe(-32601);
    expect((await post('tasks/result', { taskId })).error.code).toBe(-32601);
  });

  it('leaves a client without the extension as before: a long run answers its view, never a task', async () => {
    const run = (await execute(SLOW, { waitMs: 50 }, {})).result;
    expect(run.resultType).toBe('complete');
    expect(run).not.toHaveProperty('taskId');
    expect(run.structuredContent.state).not.toBe('idle');
  });

  it("keeps a caller's tasks its own: another key and a forged id are not found; an unknown input is ignored", async () => {
    const { taskId } = (await execute(LOOP, { timeoutMs: 120_000 })).result;
    const otherKey = (await apiClient(shop.url(), KEY)('POST', '/keys', { name: 'other', role: 'agent' }))
      .body.key;
    const other = modernPoster(shop.url(), otherKey);
    for (const method of ['tasks/get', 'tasks/cancel'])
      expect((await other(method, { taskId })).error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('Task not found'),
      });
    expect((await other('tasks/update', { taskId, inputResponses: {} })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('Task not found'),
    });
    expect((await modernPoster(shop.url(), KEY)('tasks/get', { taskId })).error.code).toBe(-32602);
    expect((await post('tasks/get', { taskId: `${taskId.slice(0, -4)}AAAA` })).error.code).toBe(-32602);
    const ignored = await post('tasks/update', {
      taskId,
      inputResponses: { 'approval-ap_none': { action: 'accept', content: { decision: 'approve' } } },
    });
    expect(ignored.result).toMatchObject({ resultType: 'complete' });
    expect((await post('tasks/get', { taskId })).result.status).toBe('working');
    await post('tasks/cancel', { taskId });
  });
});
