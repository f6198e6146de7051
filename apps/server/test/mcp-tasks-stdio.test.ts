import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ASKING_CODE } from './approval-helpers';
import { bridgeTransport, bridgeTransportV1, CLI, useAskingHosts } from './bridge-helpers';
import { apiClient, type Json } from './helpers';
import { eventually, LOOP, legacyTasks, PRINTING, TASKS_EXTENSION, userCalls } from './mcp-task-helpers';

const KEY = 'mcp-tasks-stdio-admin-key';

// Over stdio the client keeps a connection: a task's run is followed on it (stdout lines as
// progress of the call's token, status changes as notifications), and tasks/result can ask the
// person at the client about an approval the run waits for.
describe('MCP tasks over stdio (cyrnel-server mcp)', () => {
  const hosts = useAskingHosts(KEY);

  it("follows a 1.x client's task on the embedded host: stdout lines as progress of its token, status notifications; a bridge started again finds it", async () => {
    const data = await hosts.embeddedDir();
    const embedded = () => bridgeTransportV1({ dataDir: data.path });
    const client = new ClientV1({ name: 'tasks-stdio-v1', version: '1.0.0' });
    const statuses: string[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      statuses.push(notification.params.status);
    });
    const again = new ClientV1({ name: 'tasks-stdio-v1-again', version: '1.0.0' });
    try {
      await client.connect(embedded());
      await client.listTools();
      const progress: Json[] = [];
      let result: Json;
      let taskId = '';
      for await (const message of client.experimental.tasks.callToolStream(
        { name: 'execute_typescript', arguments: { code: PRINTING } },
        undefined,
        { onprogress: (event) => void progress.push(event) },
      )) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        if (message.type === 'result') result = message.result;
        if (message.type === 'error') throw message.error;
      }
      expect(result.structuredContent).toMatchObject({ exitState: 'success', output: { done: true } });
      expect(progress.map((event) => event.message)).toEqual(['one', 'two', 'three']);
      expect(statuses).toContain('completed');
      await client.close();
      await again.connect(embedded());
      expect((await again.experimental.tasks.getTask(taskId)).status).toBe('completed');
    } finally {
      await client.close();
      await again.close();
      await data.remove();
    }
  });

  it('asks the person at a 2025 client that shows forms through tasks/result, with a form of the task', async () => {
    const data = await hosts.embeddedDir();
    const asked: Json[] = [];
    const client = new Client(
      { name: 'tasks-stdio-v2', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    try {
      await client.connect(bridgeTransport({ dataDir: data.path }));
      const tasks = legacyTasks(client);
      const { task } = await tasks.create(ASKING_CODE);
      const result = await tasks.result(task.taskId);
      expect(asked).toHaveLength(1);
      expect(asked[0]._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: task.taskId } });
      expect(asked[0].message).toContain('shop.createOrder');
      // Approved as the embedded host's own user; the call went on (to the outbound guard).
      expect(result.structuredContent).toMatchObject({
        state: 'idle',
        toolCalls: [{ toolId: 'createOrder', decision: { outcome: 'approved', decidedBy: null } }],
      });
    } finally {
      await client.close();
      await data.remove();
    }
  });

  it("runs tasks through the bridge to a server: the key's own only, progress from the server's events, cancel stops the upstream calls, a bridge started again finds them", async () => {
    const bridge = () => bridgeTransport({ url: hosts.server().url, apiKey: hosts.agentKey() });
    const client = new Client({ name: 'tasks-bridge', version: '1.0.0' });
    const again = new Client({ name: 'tasks-bridge-again', version: '1.0.0' });
    const api = apiClient(hosts.server().url, KEY);
    const foreign = (await api('POST', '/processes', { code: 'cyrnel.output({ admin: true })' })).body;
    try {
      await client.connect(bridge());
      const tasks = legacyTasks(client);
      const printing = await tasks.create(PRINTING);
      const progress: Json[] = [];
      const printed = await tasks.result(printing.task.taskId, {
        onprogress: (event: Json) => void progress.push(event),
      });
      expect(printed.structuredContent).toMatchObject({ exitState: 'success', stdout: 'one\ntwo\nthree\n' });
      expect(progress.map((event) => event.message)).toEqual(['one', 'two', 'three']);

      const { task } = await tasks.create(LOOP, { timeoutMs: 120_000 });
      await hosts.upstream().arrived('/users/3');
      const listed = (await tasks.list()).tasks.map((item: Json) => item.taskId);
      expect(listed).toEqual(expect.arrayContaining([task.taskId, printing.task.taskId]));
      expect(listed.some((taskId: string) => taskId.startsWith(`task-${foreign.id}-`))).toBe(false);
      expect((await tasks.cancel(task.taskId)).status).toBe('cancelled');
      const seen = userCalls(hosts.upstream());
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(userCalls(hosts.upstream())).toBe(seen);
      await client.close();
      await again.connect(bridge());
      expect((await legacyTasks(again).get(printing.task.taskId)).status).toBe('completed');
    } finally {
      await client.close();
      await again.close();
    }
  });

  it('answers a 2026-07-28 client of the bridge that declares the Tasks extension with a task it can follow and cancel', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', CYRNEL_URL: hosts.server().url, CYRNEL_API_KEY: hosts.agentKey() },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const messages: Json[] = [];
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        messages.push(JSON.parse(buffered.slice(0, end)));
        buffered = buffered.slice(end + 1);
      }
    });
    let id = 0;
    /** One request of a 2026-07-28 client (its envelope declaring the extension), answered. */
    const send = async (method: string, params: Json): Promise<Json> => {
      const requestId = ++id;
      const _meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
      };
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: requestId, method, params: { ...params, _meta } })}\n`,
      );
      return eventually(
        async () => messages.find((message) => message.id === requestId),
        (message) => message !== undefined,
      );
    };
    try {
      const started = (
        await send('tools/call', {
          name: 'execute_typescript',
          arguments: { code: LOOP, timeoutMs: 120_000 },
        })
      ).result;
      expect(started).toMatchObject({ resultType: 'task', status: 'working' });
      expect((await send('tasks/get', { taskId: started.taskId })).result.status).toBe('working');
      expect((await send('tasks/cancel', { taskId: started.taskId })).result).toMatchObject({
        resultType: 'complete',
      });
      const ended = await eventually(
        async () => (await send('tasks/get', { taskId: started.taskId })).result,
        (task: Json) => task.status !== 'working',
      );
      expect(ended.status).toBe('cancelled');
    } finally {
      child.stdin.end();
    }
  });
});
