import { describe, expect, it } from 'vitest';
import type { Json } from './helpers';
import { type Api, usePolicyServer } from './policy-helpers';

/** A route of the policies or the approvals, with a body where it takes one. */
type Call = readonly [method: string, path: string, body?: unknown];

const POLICY_ROUTES: readonly Call[] = [
  ['GET', '/services/shop/policy'],
  ['PUT', '/services/shop/policy', {}],
];

const APPROVAL_ROUTES: readonly Call[] = [
  ['GET', '/approvals'],
  ['GET', '/approvals/ap_nope'],
  ['POST', '/approvals/ap_nope', { decision: 'approve' }],
  ['POST', '/approvals/plans/pl_nope', { decision: 'deny' }],
];

async function status(api: Api, [method, path, body]: Call): Promise<[string, number, string?]> {
  const response = await api(method, path, body);
  return [`${method} ${path}`, response.status, response.body?.reason];
}

describe('the routes of policies', () => {
  const server = usePolicyServer();

  it('lets only admins read and write a policy, and approvers and admins the approvals', async () => {
    for (const call of POLICY_ROUTES) {
      const route = `${call[0]} ${call[1]}`;
      expect(await status(server.admin, call)).toEqual([route, 200, undefined]);
      expect(await status(server.approver, call)).toEqual([route, 403, 'forbidden']);
      expect(await status(server.agent, call)).toEqual([route, 403, 'forbidden']);
    }
    const listed = await status(server.admin, APPROVAL_ROUTES[0] as Call);
    expect(listed).toEqual(['GET /approvals', 200, undefined]);
    expect(await status(server.approver, APPROVAL_ROUTES[0] as Call)).toEqual(listed);
    for (const call of APPROVAL_ROUTES.slice(1)) {
      const route = `${call[0]} ${call[1]}`;
      expect(await status(server.admin, call)).toEqual([route, 404, 'approval_not_found']);
      expect(await status(server.approver, call)).toEqual([route, 404, 'approval_not_found']);
    }
    for (const call of APPROVAL_ROUTES) {
      const refused = await server.agent(call[0], call[1], call[2]);
      expect(refused).toMatchObject({ status: 403, body: { code: 'forbidden', reason: 'forbidden' } });
      expect(refused.body.error).toContain('an approver or admin key may');
    }
  });

  it('lets an approver key do what an agent key may, on its own processes', async () => {
    const created = await server.approver('POST', '/processes', {
      code: 'cyrnel.output({ a: 1 })',
      wait: true,
    });
    expect(created).toMatchObject({
      status: 201,
      body: { exitState: 'success', keyId: server.ids.approver },
    });
    expect((await server.approver('GET', '/tools?serviceId=shop')).status).toBe(200);
    expect((await server.approver('GET', `/processes/${created.body.id}/output`)).body).toEqual({ a: 1 });
    // Another key's process is as unknown to it as to an agent.
    expect((await server.agent('GET', `/processes/${created.body.id}`)).status).toBe(404);
    expect((await server.approver('POST', '/keys', { name: 'x', role: 'admin' })).status).toBe(403);
  });

  it('refuses a policy naming an unknown policy, annotation, label or field (400), tool or service (404)', async () => {
    const refusals: readonly [unknown, number, string, string][] = [
      [{ default: 'sometimes' }, 400, 'invalid_request', 'sometimes'],
      [{ byAnnotation: { fast: 'allow' } }, 400, 'invalid_request', 'byAnnotation.fast'],
      [{ byAnnotation: { readOnly: 'maybe' } }, 400, 'invalid_request', 'maybe'],
      [{ tools: { getUser: 'perhaps' } }, 400, 'invalid_request', 'perhaps'],
      [{ labels: { getUser: ['secret'] } }, 400, 'invalid_request', 'secret'],
      [{ dataFlow: 'allow' }, 400, 'invalid_request', 'dataFlow'],
      [{ colour: 'red' }, 400, 'invalid_request', 'colour'],
      [['allow'], 400, 'invalid_request', 'object'],
      [{ tools: { deleteEverything: 'allow' } }, 404, 'tool_not_found', 'deleteEverything'],
      [{ labels: { deleteEverything: ['private'] } }, 404, 'tool_not_found', 'deleteEverything'],
    ];
    for (const [body, code, reason, named] of refusals) {
      const response = await server.admin('PUT', '/services/shop/policy', body);
      expect({ body, status: response.status, reason: response.body.reason }).toEqual({
        body,
        status: code,
        reason,
      });
      expect(response.body.error).toContain(named);
    }
    for (const method of ['GET', 'PUT'] as const) {
      const unknown = await server.admin(
        method,
        '/services/nowhere/policy',
        method === 'PUT' ? {} : undefined,
      );
      expect(unknown).toMatchObject({ status: 404, body: { reason: 'service_not_found' } });
    }
    // Nothing refused was stored.
    expect((await server.admin('GET', '/services/shop/policy')).body).toEqual({});
  });

  it('stores a policy whole, answers it as stored, and an empty body clears it', async () => {
    const policy = {
      default: 'ask',
      byAnnotation: { readOnly: 'allow', destructive: 'block' },
      tools: { createOrder: 'block' },
      labels: { getUser: ['private', 'untrusted'] },
      dataFlow: 'block',
    };
    expect(await server.admin('PUT', '/services/shop/policy', policy)).toMatchObject({
      status: 200,
      body: policy,
    });
    expect((await server.admin('GET', '/services/shop/policy')).body).toEqual(policy);
    expect(await server.admin('PUT', '/services/shop/policy')).toMatchObject({ status: 200, body: {} });
    expect((await server.admin('GET', '/services/shop/policy')).body).toEqual({});
  });

  it('lists tools with their annotations, labels, own and effective policy, filtered by effective policy', async () => {
    const byId = async (query = '') => {
      const items = (await server.agent('GET', `/tools?serviceId=shop${query}`)).body.items as Json[];
      return Object.fromEntries(items.map((tool) => [tool.id, tool]));
    };
    const before = await byId();
    expect(before.createOrder).toMatchObject({
      annotations: { readOnly: false },
      labels: ['egress'],
      policy: null,
      effectivePolicy: 'ask',
    });
    expect(before.getUser).toMatchObject({
      annotations: { readOnly: true, idempotent: true },
      labels: [],
      policy: null,
      effectivePolicy: 'allow',
    });
    expect(Object.keys(await byId('&effectivePolicy=ask'))).toEqual(['createOrder']);
    expect(Object.keys(await byId('&effectivePolicy=allow'))).toEqual(['getUser', 'listOrders']);

    const put = await server.admin('PUT', '/services/shop/policy', {
      tools: { createOrder: 'block', getUser: 'ask' },
      labels: { listOrders: ['private'] },
    });
    expect(put.status).toBe(200);
    const after = await byId();
    expect(after.createOrder).toMatchObject({ policy: 'block', effectivePolicy: 'block' });
    expect(after.getUser).toMatchObject({ policy: 'ask', effectivePolicy: 'ask' });
    expect(after.listOrders).toMatchObject({ labels: ['private'], policy: null, effectivePolicy: 'allow' });
    expect(Object.keys(await byId('&effectivePolicy=block'))).toEqual(['createOrder']);
    const one = await server.agent('GET', '/tools/shop/getUser');
    expect(one.body).toMatchObject({
      policy: 'ask',
      effectivePolicy: 'ask',
      annotations: { readOnly: true },
    });
    const bad = await server.agent('GET', '/tools?effectivePolicy=sometimes');
    expect(bad).toMatchObject({ status: 400, body: { reason: 'invalid_request' } });
    await server.admin('PUT', '/services/shop/policy', {});
  });
});

describe('the scope and policy of a key', () => {
  const server = usePolicyServer();

  it('stores names of installed services and tools, and refuses any other (400 naming it)', async () => {
    const created = await server.admin('POST', '/keys', {
      name: 'reader',
      role: 'agent',
      scope: { services: ['shop'], tools: ['shop.getUser'] },
      policy: { default: 'ask', services: { shop: 'allow' }, tools: { 'shop.createOrder': 'block' } },
    });
    expect(created).toMatchObject({
      status: 201,
      body: {
        scope: { services: ['shop'], tools: ['shop.getUser'] },
        policy: { default: 'ask', services: { shop: 'allow' }, tools: { 'shop.createOrder': 'block' } },
      },
    });
    const listed = (await server.admin('GET', '/keys')).body.items as Json[];
    expect(listed.find((key) => key.id === created.body.id)).toMatchObject({ scope: created.body.scope });
    for (const [field, value, named] of [
      ['scope', { services: ['nowhere'] }, 'nowhere'],
      ['scope', { tools: ['shop.deleteEverything'] }, 'shop.deleteEverything'],
      ['scope', { tools: ['nowhere.getUser'] }, 'nowhere.getUser'],
      ['policy', { services: { nowhere: 'allow' } }, 'nowhere'],
      ['policy', { tools: { 'shop.nope': 'allow' } }, 'shop.nope'],
      ['scope', { tools: ['getUser'] }, 'getUser'],
    ] as const) {
      const refused = await server.admin('POST', '/keys', { name: 'bad', role: 'agent', [field]: value });
      expect({ value, status: refused.status, reason: refused.body.reason }).toEqual({
        value,
        status: 400,
        reason: 'invalid_request',
      });
      expect(refused.body.error).toContain(named);
    }
  });
});
