import type { ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, UPSTREAM_KEY } from './helpers';
import { textOf, toolsClient, toolsClientV1 } from './mcp-tools-helpers';
import { type Api, idleRecord, ordersSpec, usePolicyServer } from './policy-helpers';

/**
 * The shop with `createOrder` documented as the upstream answers it (the orders, as JSON): its
 * results match its output schema, so they come back as structured content.
 */
function documentedOrders(baseUrl: string): Record<string, unknown> {
  const spec = ordersSpec(baseUrl) as Json;
  spec.paths['/orders'].post.responses['200'] = {
    description: 'the orders',
    content: {
      'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Order' } } },
    },
  };
  return spec;
}

/** The approval a process waits for, once it waits (polled: the call reaches the gate on its own time). */
async function pendingApproval(api: Api): Promise<Json> {
  for (let i = 0; i < 500; i++) {
    const listed = await api('GET', '/approvals?state=pending');
    const [first] = listed.body.items ?? [];
    if (first) return first;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no approval became pending');
}

describe('direct tools under the policies: blocked, asked, approved, denied', () => {
  const policy = usePolicyServer();
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
  });
  const connect = async (key: string, options: Parameters<typeof toolsClient>[3] = {}) => {
    const client = await toolsClient(policy.url(), key, 'modern', options);
    closers.push(() => client.close());
    return client;
  };
  beforeAll(async () => {
    const installed = await policy.admin('POST', '/services', {
      id: 'orders',
      adapter: 'openapi',
      definition: JSON.stringify(documentedOrders(policy.upstream().url)),
      secrets: { shopKey: UPSTREAM_KEY },
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
  });
  const ordersMade = () =>
    policy.upstream().requests.filter((line) => line.startsWith('POST /orders')).length;

  it('lists the asking tool with its hints and a note; a blocked tool is not listed and its call is refused', async () => {
    const client = await connect(policy.keys.agent);
    const before = await client.listTools();
    const create = before.tools.find((tool) => tool.name === 'shop__createOrder');
    expect(create?.annotations).toMatchObject({ readOnlyHint: false });
    expect(create?.description).toContain('waits for a person to approve it');
    expect(create?._meta).toMatchObject({ 'cyrnel/policy': 'ask' });
    const put = await policy.admin('PUT', '/services/shop/policy', { tools: { listOrders: 'block' } });
    expect(put.status).toBe(200);
    try {
      const after = await client.listTools();
      const names = after.tools.map((tool) => tool.name).filter((name) => name.startsWith('shop__'));
      expect(names).toEqual(['shop__createOrder', 'shop__getUser']);
      const requests = policy.upstream().requests.length;
      const refused = await client.callTool({
        name: 'shop__listOrders',
        arguments: { query: { userId: 1 } },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^tool_blocked: /);
      expect(policy.upstream().requests.length).toBe(requests);
      // The attempt is in the audit, as a call from code would be.
      const processId = (refused._meta as Json)['cyrnel/processId'];
      const calls = await policy.admin('GET', `/processes/${processId}/calls`);
      expect(calls.body.items).toEqual([
        expect.objectContaining({
          toolId: 'listOrders',
          decision: expect.objectContaining({ outcome: 'blocked' }),
        }),
      ]);
    } finally {
      await policy.admin('PUT', '/services/shop/policy', {});
    }
  });

  it("waits through an agent's call a person approves in the API, telling where in a progress message", async () => {
    const client = await connect(policy.keys.agent);
    const messages: string[] = [];
    const made = ordersMade();
    const call = client.callTool(
      { name: 'orders__createOrder', arguments: { body: { userId: 7 } } },
      { onprogress: (progress) => void messages.push(progress.message ?? '') },
    );
    const approval = await pendingApproval(policy.approver);
    expect(approval).toMatchObject({ serviceId: 'orders', toolId: 'createOrder' });
    const decided = await policy.approver('POST', `/approvals/${approval.id}`, { decision: 'approve' });
    expect(decided.status).toBe(200);
    const result = await call;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 200 });
    expect(ordersMade()).toBe(made + 1);
    expect(messages.join('\n')).toContain(`/ui/approvals/${approval.id}`);
    const processId = (result._meta as Json)['cyrnel/processId'];
    const calls = await policy.admin('GET', `/processes/${processId}/calls`);
    expect(calls.body.items[0].decision).toMatchObject({
      policy: 'ask',
      outcome: 'approved',
      decidedBy: policy.ids.approver,
    });
  });

  it('answers a denied call with approval_denied; nothing reaches the upstream', async () => {
    const client = await connect(policy.keys.agent);
    const made = ordersMade();
    const call = client.callTool({ name: 'orders__createOrder', arguments: { body: { userId: 8 } } });
    const approval = await pendingApproval(policy.approver);
    await policy.approver('POST', `/approvals/${approval.id}`, { decision: 'deny', note: 'not today' });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ 'cyrnel/reason': 'approval_denied' });
    expect(ordersMade()).toBe(made);
  });

  it('asks an approver whose client shows forms in the call itself, and goes on with the answer', async () => {
    const asked: ElicitRequestFormParams[] = [];
    const client = await connect(policy.keys.approver, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as ElicitRequestFormParams);
      return { action: 'accept', content: { decision: 'approve', note: 'via the client' } };
    });
    const made = ordersMade();
    const result = await client.callTool({ name: 'orders__createOrder', arguments: { body: { userId: 9 } } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 200 });
    expect(ordersMade()).toBe(made + 1);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toContain('orders.createOrder');
    expect(asked[0]?.message).toContain('"userId":9');
    const processId = (result._meta as Json)['cyrnel/processId'];
    const calls = await policy.admin('GET', `/processes/${processId}/calls`);
    expect(calls.body.items[0].decision).toMatchObject({
      outcome: 'approved',
      decidedBy: policy.ids.approver,
      note: 'via the client',
    });
  });

  it('withdraws a waiting call whose client gives up: its process ends and the call is never made', async () => {
    const client = await connect(policy.keys.agent);
    const made = ordersMade();
    const controller = new AbortController();
    const call = client
      .callTool(
        { name: 'orders__createOrder', arguments: { body: { userId: 10 } } },
        { signal: controller.signal },
      )
      .catch((error: unknown) => error);
    const approval = await pendingApproval(policy.approver);
    controller.abort();
    await call;
    const record = await idleRecord(policy.admin, approval.processId);
    expect(record).toMatchObject({ exitState: 'canceled', ref: 'mcp-tools' });
    const decided = await policy.approver('POST', `/approvals/${approval.id}`, { decision: 'approve' });
    expect(decided.status).toBe(409);
    expect(ordersMade()).toBe(made);
  });

  it('withdraws the waiting call a 1.x client aborts over stateless HTTP (its cancellation in a request of its own)', async () => {
    const client = await toolsClientV1(policy.url(), policy.keys.agent);
    closers.push(() => client.close());
    const made = ordersMade();
    const controller = new AbortController();
    const call = client
      .callTool({ name: 'orders__createOrder', arguments: { body: { userId: 11 } } }, undefined, {
        signal: controller.signal,
        timeout: 120_000,
      })
      .catch((error: unknown) => error);
    const approval = await pendingApproval(policy.approver);
    controller.abort();
    await call;
    const record = await idleRecord(policy.admin, approval.processId);
    expect(record).toMatchObject({ exitState: 'canceled', ref: 'mcp-tools' });
    expect(ordersMade()).toBe(made);
  });
});
