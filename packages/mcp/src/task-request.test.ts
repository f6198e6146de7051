import { describe, expect, it } from 'vitest';
import { liftTaskRequest, TASK_REQUEST_META } from './task-request';

const call = (params: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });

describe('liftTaskRequest', () => {
  it("copies a 2025-11-25 call's params.task into _meta, keeping the rest", () => {
    const lifted = liftTaskRequest(
      call({ name: 'execute_typescript', task: { ttl: 5 }, _meta: { progressToken: 3 } }),
    );
    expect(lifted.params).toEqual({
      name: 'execute_typescript',
      task: { ttl: 5 },
      _meta: { progressToken: 3, [TASK_REQUEST_META]: { ttl: 5 } },
    });
  });

  it('removes the key when a client sends it itself, and leaves everything else alone', () => {
    expect(
      liftTaskRequest(call({ name: 'x', _meta: { [TASK_REQUEST_META]: {}, progressToken: 1 } })).params,
    ).toEqual({
      name: 'x',
      _meta: { progressToken: 1 },
    });
    const plain = call({ name: 'x' });
    expect(liftTaskRequest(plain)).toBe(plain);
    const other = { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't', task: {} } };
    expect(liftTaskRequest(other)).toBe(other);
    const notObject = call({ name: 'x', task: 'yes' });
    expect(liftTaskRequest(notObject)).toBe(notObject);
    expect(liftTaskRequest([call({ task: {} })])).toEqual([call({ task: {} })]);
  });

  it('leaves a 2026-07-28 request alone: it declares tasks in its envelope', () => {
    const modern = call({
      name: 'x',
      task: {},
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
    });
    expect(liftTaskRequest(modern)).toBe(modern);
  });
});
