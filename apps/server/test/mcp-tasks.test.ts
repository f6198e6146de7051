import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Json, useShopServer } from './helpers';
import { LOOP, legacyClient, legacyTasks, outcome, PRINTING, userCalls } from './mcp-task-helpers';

const KEY = 'mcp-tasks-admin-key';

// Tasks of protocol 2025-11-25 over stateless HTTP: every request is served by an instance of
// its own, so a task is found again only through its id (which names its process).
describe('long runs as MCP tasks (2025-11-25, /mcp)', () => {
  const shop = useShopServer({ apiKey: KEY });
  let agentKey: string;
  const clients: { close(): Promise<unknown> }[] = [];

  const connect = async (key = agentKey) => {
    const client = await legacyClient(shop.url(), key);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    agentKey = (await shop.api('POST', '/keys', { name: 'agent', role: 'agent' })).body.key;
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
  });

  it('declares tasks: list, cancel and task-augmented tools/call; execute_typescript supports them optionally', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.execute_typescript?.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get_process?.execution).toBeUndefined();
  });

  it('answers a task at once; tasks/get reports working then completed; tasks/result answers what the tool answers', async () => {
    const client = await connect();
    const tasks = legacyTasks(client);
    const created = await tasks.create(PRINTING);
    const { task } = created;
    expect(task).toMatchObject({ status: 'working', ttl: 7 * 86_400_000, pollInterval: 1_000 });
    expect(task.taskId).toMatch(/^task-\d+-[\w-]{22}$/);
    expect(Date.parse(task.createdAt)).not.toBeNaN();
    const processId = created.structuredContent.processId;
    expect((await tasks.get(task.taskId)).status).toBe('working');

    const result = await tasks.result(task.taskId);
    expect(result._meta).toEqual({
      'io.modelcontextprotocol/related-task': { taskId: task.taskId },
      // What the tool answers: the ended run's efficiency meter with it.
      'cyrnel/efficiency': expect.objectContaining({ toolCalls: 0, toolResultBytes: 0 }),
    });
    expect(result.structuredContent).toMatchObject({
      processId,
      state: 'idle',
      exitState: 'success',
      output: { done: true },
      stdout: 'one\ntwo\nthree\n',
    });
    // The same answer as the tool's for that process.
    const tool = await client.callTool({ name: 'get_process', arguments: { processId } });
    expect(result.content).toEqual(tool.content);
    expect(result.structuredContent).toEqual(tool.structuredContent);
    expect(result.isError).toBe(false);

    const ended = await tasks.get(task.taskId);
    expect(ended).toMatchObject({ taskId: task.taskId, status: 'completed', createdAt: task.createdAt });
    expect(ended.pollInterval).toBeUndefined();
    expect((await tasks.list()).tasks.map((item: Json) => item.taskId)).toContain(task.taskId);
  });

  it('reports a run that fails as failed, its tool result an error', async () => {
    const tasks = legacyTasks(await connect());
    const { task } = await tasks.create(
      'await new Promise((r) => setTimeout(r, 200)); throw new Error("nope")',
    );
    const result = await tasks.result(task.taskId);
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { exitState: 'failed', error: expect.stringContaining('nope') },
    });
    const failed = await tasks.get(task.taskId);
    expect(failed.status).toBe('failed');
    expect(failed.statusMessage).toContain('nope');
  });

  it('sends the run’s stdout lines as progress of a tasks/result that gives a progress token', async () => {
    const tasks = legacyTasks(await connect());
    const { task } = await tasks.create(PRINTING);
    const progress: Json[] = [];
    await tasks.result(task.taskId, { onprogress: (event: Json) => void progress.push(event) });
    expect(progress.map((event) => event.message)).toEqual(['one', 'two', 'three']);
    expect(progress.map((event) => event.progress)).toEqual([1, 2, 3]);
  });

  it('cancels: tasks/cancel kills the run (no further upstream call) and the task stays cancelled', async () => {
    const tasks = legacyTasks(await connect());
    const { task } = await tasks.create(LOOP, { timeoutMs: 120_000 });
    await shop.upstream().arrived('/users/3');
    const cancelled = await tasks.cancel(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    const seen = userCalls(shop.upstream());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(userCalls(shop.upstream())).toBe(seen);
    expect((await tasks.get(task.taskId)).status).toBe('cancelled');
    // A task that ended cannot be cancelled again.
    const again = await outcome(tasks.cancel(task.taskId));
    expect(again).toMatchObject({
      code: -32602,
      message: expect.stringContaining("terminal status 'cancelled'"),
    });
    const result = await tasks.result(task.taskId);
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { state: 'idle', exitState: 'canceled' },
    });
  });

  it("keeps a caller's tasks its own: another key, an admin and a forged id find nothing, and list none of them", async () => {
    const api = apiClient(shop.url(), KEY);
    const otherKey = (await api('POST', '/keys', { name: 'other', role: 'agent' })).body.key;
    const own = legacyTasks(await connect());
    const { task } = await own.create(LOOP, { timeoutMs: 120_000 });
    await shop.upstream().arrived('/users/2');
    for (const key of [otherKey, KEY]) {
      const other = legacyTasks(await connect(key));
      for (const attempt of [other.get(task.taskId), other.result(task.taskId), other.cancel(task.taskId)])
        expect(await outcome(attempt)).toEqual({
          code: -32602,
          message: expect.stringContaining('Task not found'),
        });
      expect((await other.list()).tasks.map((item: Json) => item.taskId)).not.toContain(task.taskId);
    }
    const forged = `${task.taskId.slice(0, -4)}AAAA`;
    expect(await outcome(own.get(forged))).toMatchObject({ code: -32602 });
    expect(await outcome(own.get('task-1'))).toMatchObject({ code: -32602 });
    // Still running: nobody else's request touched it.
    expect((await own.get(task.taskId)).status).toBe('working');
    await own.cancel(task.taskId);
  });

  it('pages tasks/list and refuses a cursor it never gave', async () => {
    const tasks = legacyTasks(await connect());
    const listed = await tasks.list();
    expect(listed.tasks.length).toBeGreaterThan(0);
    expect(await outcome(tasks.list('not-a-cursor'))).toMatchObject({ code: -32602 });
  });

  it('leaves a client that asks for no task as before: the tool answers, with no task', async () => {
    const client = await connect();
    const run = await client.callTool({
      name: 'execute_typescript',
      arguments: {
        code: 'await new Promise((r) => setTimeout(r, 1500)); cyrnel.output({ done: true });',
        waitMs: 50,
      },
    });
    expect(run).not.toHaveProperty('task');
    expect(run.structuredContent).toMatchObject({ state: expect.not.stringMatching(/^idle$/) });
    expect((run.content as Json)[0].text).toContain('get_process');
  });

  it('drives a task with the 1.x SDK: callToolStream creates it, polls it and yields the result', async () => {
    const client = new ClientV1({ name: 'tasks-v1', version: '1.0.0' });
    await client.connect(
      new TransportV1(new URL(`${shop.url()}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agentKey}` } },
      }),
    );
    clients.push(client);
    await client.listTools();
    const kinds: string[] = [];
    let result: Json;
    let taskId = '';
    for await (const message of client.experimental.tasks.callToolStream({
      name: 'execute_typescript',
      arguments: { code: 'await new Promise((r) => setTimeout(r, 1200)); cyrnel.output({ v1: true });' },
    })) {
      kinds.push(message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds).toContain('taskStatus');
    expect(kinds.at(-1)).toBe('result');
    expect(result.structuredContent).toMatchObject({ exitState: 'success', output: { v1: true } });
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.find((item) => item.taskId === taskId)?.status).toBe('completed');
    // A plain callTool of the same tool stays a plain call.
    const plain = await client.callTool({
      name: 'execute_typescript',
      arguments: { code: 'cyrnel.output({ plain: 1 })' },
    });
    expect(plain.structuredContent).toMatchObject({ exitState: 'success', output: { plain: 1 } });
  });
});
