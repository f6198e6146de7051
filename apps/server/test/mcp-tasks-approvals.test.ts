import { describe, expect, it } from 'vitest';
import { ASKING_CODE, useAskingShop } from './approval-helpers';
import type { Json } from './helpers';
import { eventually, legacyClient, legacyTasks, modernPoster, TASKS_EXTENSION } from './mcp-task-helpers';

const KEY = 'mcp-tasks-approvals-admin-key';

/** {@link ASKING_CODE} after a pause longer than the server waits before answering with a task. */
const LATE_ASKING = `await new Promise((r) => setTimeout(r, 2500));\n${ASKING_CODE}`;

// A run waiting for a person's approval is a task that needs input: 2025-11-25 says
// `input_required` (and `tasks/result` waits through it); the 2026-07-28 extension lists the form
// for a caller who may decide it, answered with `tasks/update`.
describe('MCP tasks waiting for an approval', () => {
  const shop = useAskingShop(KEY);

  it('2025-11-25: input_required with the link while it waits; tasks/result waits through the decision', async () => {
    const client = await legacyClient(shop.url(), shop.agentKey());
    try {
      const tasks = legacyTasks(client);
      const { task } = await tasks.create(ASKING_CODE);
      const waiting = await eventually(
        () => tasks.get(task.taskId),
        (current: Json) => current.status !== 'working',
      );
      expect(waiting.status).toBe('input_required');
      const approvalId = waiting.statusMessage.match(/approval (ap_[\w-]+)/)?.[1];
      expect(approvalId).toBeDefined();
      expect(waiting.statusMessage).toContain(`${shop.url()}/ui/approvals/${approvalId}`);

      const result = tasks.result(task.taskId);
      expect((await shop.api('POST', `/approvals/${approvalId}`, { decision: 'approve' })).status).toBe(200);
      expect((await result).structuredContent).toMatchObject({
        state: 'idle',
        exitState: 'success',
        output: { step: 'after', status: 200 },
      });
      expect((await tasks.get(task.taskId)).status).toBe('completed');
    } finally {
      await client.close();
    }
  });

  it('2026-07-28: a caller who may decide gets the form in tasks/get and answers it with tasks/update', async () => {
    const post = modernPoster(shop.url(), shop.person().key, {
      extensions: { [TASKS_EXTENSION]: {} },
      elicitation: { form: {} },
    });
    const started = (
      await post('tools/call', { name: 'execute_typescript', arguments: { code: LATE_ASKING } })
    ).result;
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    const { taskId } = started;
    const asking = await eventually(
      async () => (await post('tasks/get', { taskId })).result,
      (task: Json) => task.status !== 'working',
    );
    expect(asking.status).toBe('input_required');
    const [key, request] = Object.entries(asking.inputRequests as Record<string, Json>)[0] ?? [];
    expect(key).toMatch(/^approval-ap_/);
    expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'form' } });
    expect(request.params.message).toContain('shop.createOrder');

    const ack = await post('tasks/update', {
      taskId,
      inputResponses: { [key as string]: { action: 'accept', content: { decision: 'approve', note: 'ok' } } },
    });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const ended = await eventually(
      async () => (await post('tasks/get', { taskId })).result,
      (task: Json) => task.status === 'completed',
    );
    expect(ended.result.structuredContent).toMatchObject({
      output: { step: 'after', status: 200 },
      toolCalls: [
        { toolId: 'createOrder', decision: { outcome: 'approved', decidedBy: shop.person().id, note: 'ok' } },
      ],
    });
  });

  it('2026-07-28: a caller who may not decide sees the task working, with where a person decides', async () => {
    const post = modernPoster(shop.url(), shop.agentKey(), {
      extensions: { [TASKS_EXTENSION]: {} },
      elicitation: { form: {} },
    });
    const { taskId } = (
      await post('tools/call', { name: 'execute_typescript', arguments: { code: LATE_ASKING } })
    ).result;
    const waiting = await eventually(
      async () => (await post('tasks/get', { taskId })).result,
      (task: Json) => task.statusMessage.includes('waits for approval'),
    );
    expect(waiting.status).toBe('working');
    expect(waiting).not.toHaveProperty('inputRequests');
    const approvalId = waiting.statusMessage.match(/approval (ap_[\w-]+)/)?.[1];
    // An answer from this caller decides nothing: an agent never approves its own calls.
    await post('tasks/update', {
      taskId,
      inputResponses: { [`approval-${approvalId}`]: { action: 'accept', content: { decision: 'approve' } } },
    });
    expect((await shop.api('GET', `/approvals/${approvalId}`)).body.state).toBe('pending');
    expect((await shop.api('POST', `/approvals/${approvalId}`, { decision: 'deny' })).status).toBe(200);
    const ended = await eventually(
      async () => (await post('tasks/get', { taskId })).result,
      (task: Json) => task.status === 'completed',
    );
    expect(ended.result.structuredContent.output).toEqual({ step: 'failed', reason: 'approval_denied' });
  });
});
