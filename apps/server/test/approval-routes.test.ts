import { describe, expect, it } from 'vitest';
import { type Json, parseSse } from './helpers';
import { idleRecord, ORDER_CODE, usePolicyServer } from './policy-helpers';

/** An open event stream: its text so far, read until a test has what it waits for. */
async function openEvents(url: string, key: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  // Only whole events: a chunk may end inside one.
  const whole = () => parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2));
  return {
    status: response.status,
    /** Read until `event: <name>` has arrived whole (or the stream ended); the events so far. */
    async until(name: string): Promise<{ event: string; data: Json }[]> {
      const done = () => whole().some((event) => event.event === name);
      while (!done()) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      return whole();
    },
  };
}

describe('the routes of approvals', () => {
  const server = usePolicyServer();

  it('answers a waiting run early, streams its approval and records who approved it, once', async () => {
    const created = await server.agent('POST', '/processes', { code: ORDER_CODE, wait: true });
    expect(created).toMatchObject({
      status: 201,
      body: { state: 'waiting', exitState: null, approvalId: expect.any(String), output: {} },
    });
    const { id, approvalId } = created.body as { id: number; approvalId: string };
    const pending = await server.approver('GET', '/approvals?state=pending');
    expect(pending.body.items).toEqual([
      expect.objectContaining({
        id: approvalId,
        kind: 'call',
        state: 'pending',
        processId: id,
        keyId: server.ids.agent,
        serviceId: 'shop',
        toolId: 'createOrder',
        decidedBy: null,
      }),
    ]);
    expect((await server.approver('GET', `/approvals?processId=${id}`)).body.items).toHaveLength(1);
    expect((await server.approver('GET', '/approvals?processId=999999')).body.items).toEqual([]);
    const badState = await server.approver('GET', '/approvals?state=later');
    expect(badState).toMatchObject({ status: 400, body: { reason: 'invalid_request' } });
    const detail = await server.approver('GET', `/approvals/${approvalId}`);
    expect(detail.body).toMatchObject({
      id: approvalId,
      code: ORDER_CODE,
      line: 1,
      parameters: { body: { userId: 7 } },
      tools: null,
    });
    expect(server.upstream().requests).not.toContain('POST /orders');

    // The agent follows its run: the replay says it waits for this approval.
    const events = await openEvents(`${server.url()}/processes/${id}/events`, server.keys.agent);
    expect(events.status).toBe(200);
    expect((await events.until('approval')).find((event) => event.event === 'approval')).toEqual({
      event: 'approval',
      data: { approvalId, serviceId: 'shop', toolId: 'createOrder' },
    });

    for (const body of [{ decision: 'maybe' }, { decision: 'approve', remember: 'forever' }, { note: 'x' }]) {
      const refused = await server.approver('POST', `/approvals/${approvalId}`, body);
      expect({ body, status: refused.status, reason: refused.body.reason }).toEqual({
        body,
        status: 400,
        reason: 'invalid_request',
      });
    }
    const decided = await server.approver('POST', `/approvals/${approvalId}`, {
      decision: 'approve',
      note: 'one order is fine',
    });
    expect(decided).toMatchObject({
      status: 200,
      body: { id: approvalId, state: 'approved', decidedBy: server.ids.approver, note: 'one order is fine' },
    });
    for (const api of [server.approver, server.admin]) {
      const again = await api('POST', `/approvals/${approvalId}`, { decision: 'deny' });
      expect(again).toMatchObject({ status: 409, body: { code: 'conflict', reason: 'approval_decided' } });
    }

    const streamed = await events.until('exit');
    expect(streamed.at(-1)).toMatchObject({ event: 'exit', data: { exitState: 'success' } });
    const record = await idleRecord(server.agent, id);
    expect(record).toMatchObject({ exitState: 'success', approvalId: null });
    expect((await server.agent('GET', `/processes/${id}/output`)).body).toEqual({ status: 200 });
    expect(server.upstream().requests).toContain('POST /orders');
    const calls = (await server.agent('GET', `/processes/${id}/calls`)).body.items as Json[];
    expect(calls[0]?.decision).toMatchObject({
      policy: 'ask',
      outcome: 'approved',
      approvalId,
      decidedBy: server.ids.approver,
      note: 'one order is fine',
    });
  });

  it('answers a plan without running it, refuses wait with it, and runs only the approved plan', async () => {
    const both = await server.agent('POST', '/processes', { code: ORDER_CODE, plan: true, wait: true });
    expect(both).toMatchObject({ status: 400, body: { reason: 'invalid_request' } });
    expect(both.body.details).toEqual([{ path: 'wait', message: 'conflicts with plan:true' }]);

    const planned = await server.agent('POST', '/processes', { code: ORDER_CODE, plan: true });
    expect(planned).toMatchObject({
      status: 201,
      body: {
        planId: expect.any(String),
        state: 'pending',
        codeHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        tools: [
          { serviceId: 'shop', toolId: 'createOrder', effectivePolicy: 'ask', lines: [1], known: true },
        ],
        unknown: [],
      },
    });
    const { planId } = planned.body as { planId: string };
    const listed = (await server.agent('GET', '/processes')).body.items as Json[];
    expect(listed.map((process) => process.approvalId)).not.toContain(planId);
    expect((await server.approver('GET', `/approvals/${planId}`)).body).toMatchObject({
      kind: 'plan',
      state: 'pending',
      keyId: server.ids.agent,
      code: ORDER_CODE,
      tools: [expect.objectContaining({ toolId: 'createOrder' })],
    });
    const early = await server.agent('POST', '/processes', { code: ORDER_CODE, planId });
    expect(early).toMatchObject({ status: 409, body: { reason: 'plan_mismatch' } });

    const denied = await server.approver('POST', `/approvals/plans/${planId}`, { decision: 'deny' });
    expect(denied).toMatchObject({ status: 200, body: { state: 'denied', decidedBy: server.ids.approver } });
    const again = await server.admin('POST', `/approvals/plans/${planId}`, { decision: 'approve' });
    expect(again).toMatchObject({ status: 409, body: { reason: 'approval_decided' } });
    const run = await server.agent('POST', '/processes', { code: ORDER_CODE, planId });
    expect(run).toMatchObject({ status: 409, body: { reason: 'plan_mismatch' } });
    const unknown = await server.agent('POST', '/processes', { code: ORDER_CODE, planId: 'pl_nope' });
    expect(unknown).toMatchObject({ status: 404, body: { reason: 'approval_not_found' } });

    const approved = await server.agent('POST', '/processes', { code: ORDER_CODE, plan: true });
    const decided = await server.approver('POST', `/approvals/plans/${approved.body.planId}`, {
      decision: 'approve',
    });
    expect(decided.body.state).toBe('approved');
    const ran = await server.agent('POST', '/processes', {
      code: ORDER_CODE,
      planId: approved.body.planId,
      wait: true,
    });
    expect(ran).toMatchObject({
      status: 201,
      body: { state: 'idle', exitState: 'success', output: { status: 200 } },
    });
  });
});
