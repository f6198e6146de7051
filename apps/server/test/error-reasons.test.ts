import { describe, expect, it } from 'vitest';
import { shopSpec, UPSTREAM_KEY, useServer } from './helpers';

/**
 * Every error carries a reason: what a client branches on where the status class alone
 * is ambiguous, asserted on real HTTP answers and on what a real sandbox sees.
 */
// Both paths of a tool call: made by the sandbox process itself, or by the server.
describe.each([
  { path: 'direct calls', noDirectToolCalls: false },
  { path: 'calls through the server', noDirectToolCalls: true },
])('error reasons ($path)', ({ noDirectToolCalls }) => {
  const { api, url } = useServer({ apiKey: 'reason-key', allowPrivateUrls: true, noDirectToolCalls });

  const install = async (id: string, enabled: boolean) => {
    const definition = JSON.stringify(shopSpec('http://127.0.0.1:9'));
    expect((await api('POST', '/services', { id, adapter: 'openapi', definition })).status).toBe(201);
    await api('PATCH', `/services/${id}/secrets`, [{ op: 'add', path: '/shopKey', value: UPSTREAM_KEY }]);
    if (enabled) expect((await api('POST', `/services/${id}/enabled`, { enabled: true })).status).toBe(200);
  };

  it('answers 401 unauthorized and 404 with the precise not-found reason', async () => {
    const anonymous = await fetch(`${url()}/services`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({
      error: expect.stringContaining('API key'),
      code: 'unauthorized',
      reason: 'unauthorized',
    });
    expect(await api('GET', '/services/nope')).toMatchObject({
      status: 404,
      body: { code: 'not_found', reason: 'service_not_found', error: 'service nope not found' },
    });
    expect(await api('GET', '/nowhere')).toMatchObject({
      status: 404,
      body: { code: 'not_found', reason: 'route_not_found' },
    });
    expect(await api('POST', '/services', '{"id":')).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', reason: 'invalid_request' },
    });
  });

  it('tells a disabled service from a disabled tool, and names unknown services and bad parameters', async () => {
    await install('shop', true);
    await install('dormant', false);
    expect((await api('POST', '/tools/shop/listOrders/enabled', { enabled: false })).status).toBe(200);
    const code = `
      const reasonOf = (call: Promise<unknown>) =>
        call.then(() => 'resolved', (e) => ({ status: e.status, code: e.code, reason: e.reason }));
      cyrnel.output({
        serviceDisabled: await reasonOf(cyrnel.services.dormant.tools.getUser.invoke({ path: { id: 1 } })),
        toolDisabled: await reasonOf(cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 1 } })),
        unknownService: await reasonOf(cyrnel.services.nope.tools.getUser.invoke({})),
        unknownTool: await reasonOf(cyrnel.services.shop.tools.nope.invoke({})),
        badParameters: await reasonOf(cyrnel.services.shop.tools.getUser.invoke({ path: { id: 'seven' } })),
      });
    `;
    const result = await api('POST', '/processes', { code, wait: true });
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ exitState: 'success' });
    expect(result.body.output).toEqual({
      serviceDisabled: { status: 409, code: 'conflict', reason: 'service_disabled' },
      toolDisabled: { status: 409, code: 'conflict', reason: 'tool_disabled' },
      unknownService: { status: 404, code: 'not_found', reason: 'service_not_found' },
      unknownTool: { status: 404, code: 'not_found', reason: 'tool_not_found' },
      badParameters: { status: 400, code: 'invalid_request', reason: 'invalid_parameters' },
    });
    const calls = await api('GET', `/processes/${result.body.id}/calls`);
    expect(
      calls.body.items.map((call: { errorCode: string; errorReason: string }) => [
        call.errorCode,
        call.errorReason,
      ]),
    ).toEqual([
      ['conflict', 'service_disabled'],
      ['conflict', 'tool_disabled'],
      ['not_found', 'service_not_found'],
      ['not_found', 'tool_not_found'],
      ['invalid_request', 'invalid_parameters'],
    ]);
  });

  it('refuses a process beyond its budget of discovery calls with too_many_calls', async () => {
    const code = `
      let refused: unknown = null;
      for (let i = 0; i <= 1000 && refused === null; i++) {
        await cyrnel.discover.services().catch((e) => { refused = { status: e.status, code: e.code, reason: e.reason, message: e.message }; });
      }
      cyrnel.output({ refused });
    `;
    const result = await api('POST', '/processes', { code, wait: true, timeoutMs: 60_000 });
    expect(result.body).toMatchObject({ exitState: 'success' });
    expect(result.body.output.refused).toEqual({
      status: 429,
      code: 'too_many_calls',
      reason: 'too_many_calls',
      message: expect.stringContaining('at most 1000 discovery calls'),
    });
  });

  it('answers 409 with the process reason when a process is not idle or has results', async () => {
    const created = await api('POST', '/processes', { code: 'cyrnel.output({ a: 1 })', wait: true });
    expect(created.body).toMatchObject({ exitState: 'success' });
    expect(await api('POST', `/processes/${created.body.id}/signals/run`, {})).toMatchObject({
      status: 409,
      body: { code: 'conflict', reason: 'process_has_results' },
    });
    expect(await api('POST', `/processes/${created.body.id}/signals/kill`)).toMatchObject({
      status: 409,
      body: { code: 'conflict', reason: 'process_not_running' },
    });
  });
});
