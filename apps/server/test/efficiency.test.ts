import { efficiencySummary } from '@cyrnel/sdk/api';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_CODE, type ApiResponse, type Json, useShopServer } from './helpers';

const KEY = 'efficiency-admin-key';

/**
 * Two answers the program keeps whole in its output (so the test knows their JSON exactly), a
 * call that fails (no answer: 0 bytes), a line on stdout and one on stderr.
 */
const CODE = `
const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
const orders = await cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 7 } });
const missing = await cyrnel.invoke('shop', 'nope', {}).catch((error) => error.reason);
console.log('read', orders.body.length, 'orders');
console.error('a warning é');
cyrnel.output({ user, orders, missing });
`;

/** UTF-8 bytes of a value's JSON text. */
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Run `CODE` to its end and check its metrics against what it returned; answers the result. */
async function runAndCheck(api: (method: string, path: string, body?: unknown) => Promise<ApiResponse>) {
  const ran = await api('POST', '/processes', { code: CODE, wait: true });
  expect(ran.status).toBe(201);
  const result = ran.body;
  expect(result).toMatchObject({ exitState: 'success', output: { missing: 'tool_not_found' } });
  const read = bytes(result.output.user) + bytes(result.output.orders);
  const returned = bytes(result.output) + Buffer.byteLength(result.stdout) + Buffer.byteLength(result.stderr);
  expect(result.stderr).toBe('a warning é\n');
  expect(result.metrics).toEqual({
    toolCalls: 3,
    toolResultBytes: read,
    returnedBytes: returned,
    wallMs: expect.any(Number),
    cpuMs: expect.any(Number),
  });
  const { wallMs, cpuMs } = result.metrics;
  expect(wallMs).toBeGreaterThan(0);
  expect(cpuMs).toBeGreaterThan(0);
  expect(cpuMs).toBeLessThanOrEqual(wallMs);
  // Per call: what each answer brought, 0 for the failed one.
  const calls = await api('GET', `/processes/${result.id}/calls`);
  expect(calls.body.items.map((call: Json) => call.resultBytes)).toEqual([
    bytes(result.output.user),
    bytes(result.output.orders),
    0,
  ]);
  // The record says the same once read back, and so does its line in the list.
  expect((await api('GET', `/processes/${result.id}`)).body.metrics).toEqual(result.metrics);
  const listed = (await api('GET', '/processes?limit=100')).body.items.find(
    (item: Json) => item.id === result.id,
  );
  expect(listed.metrics).toEqual(result.metrics);
  return result;
}

for (const direct of [true, false]) {
  describe(`the efficiency meter, tool calls ${direct ? 'straight to the egress gateway' : 'through the host'}`, () => {
    const shop = useShopServer({ apiKey: KEY, noDirectToolCalls: !direct });

    it('counts a run’s calls, the bytes of their answers, what it returned to the model and its times', async () => {
      await runAndCheck(shop.api);
    });
  });
}

describe('the efficiency meter of a service: GET /services/:serviceId/stats', () => {
  const shop = useShopServer({ apiKey: KEY });

  it('sums the stored runs that called the service, and is an admin route', async () => {
    const empty = await shop.api('GET', '/services/shop/stats');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      serviceId: 'shop',
      runs: 0,
      toolCalls: 0,
      toolResultBytes: 0,
      returnedBytes: 0,
      wallMs: 0,
      cpuMs: null,
      ratio: null,
      firstRunAt: null,
      lastRunAt: null,
    });

    const runs: Json[] = [];
    for (let i = 0; i < 3; i++) runs.push(await runAndCheck(shop.api));
    // A run that calls no tool of the shop is not the shop's.
    const other = await shop.api('POST', '/processes', {
      code: 'cyrnel.output({ quiet: true })',
      wait: true,
    });
    expect(other.body.metrics).toMatchObject({ toolCalls: 0, toolResultBytes: 0 });

    const sum = (pick: (metrics: Json) => number) =>
      runs.reduce((total, run) => total + pick(run.metrics), 0);
    const stats = (await shop.api('GET', '/services/shop/stats')).body;
    expect(stats).toMatchObject({
      serviceId: 'shop',
      runs: 3,
      toolCalls: 9,
      toolResultBytes: sum((metrics) => metrics.toolResultBytes),
      returnedBytes: sum((metrics) => metrics.returnedBytes),
      ratio: Math.round((sum((m) => m.toolResultBytes) / sum((m) => m.returnedBytes)) * 100) / 100,
      firstRunAt: runs[0].startedAt,
      lastRunAt: runs[2].completedAt,
    });
    expect(stats.wallMs).toBeCloseTo(
      sum((metrics) => metrics.wallMs),
      6,
    );
    expect(stats.cpuMs).toBeCloseTo(
      sum((metrics) => metrics.cpuMs),
      6,
    );

    // A deleted run leaves the sums: they cover the runs still stored.
    expect((await shop.api('DELETE', `/processes/${runs[0].id}`)).status).toBe(204);
    expect((await shop.api('GET', '/services/shop/stats')).body).toMatchObject({
      runs: 2,
      toolCalls: 6,
      firstRunAt: runs[1].startedAt,
    });

    expect((await shop.api('GET', '/services/nope/stats')).body).toMatchObject({
      code: 'not_found',
      reason: 'service_not_found',
    });
    expect((await shop.api('GET', '/services/no-pe/stats')).body).toMatchObject({ code: 'invalid_request' });
    const agent = (await shop.api('POST', '/keys', { name: 'agent', role: 'agent' })).body.key;
    const refused = await fetch(`${shop.url()}/services/shop/stats`, {
      headers: { authorization: `Bearer ${agent}` },
    });
    expect(refused.status).toBe(403);
  });
});

describe('the efficiency meter over MCP', () => {
  const shop = useShopServer({ apiKey: KEY });
  const clients: Client[] = [];
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
  });

  it('rides in _meta["cyrnel/efficiency"] of execute_typescript and get_process, not in what the model reads', async () => {
    const client = new Client(
      { name: 'cyrnel-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${shop.url()}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      }),
    );
    clients.push(client);
    // Code mode as meant: two answers read, a name and a total returned.
    const run = await client.callTool({ name: 'execute_typescript', arguments: { code: AGENT_CODE } });
    expect(run.isError).toBeFalsy();
    const view = run.structuredContent as Json;
    const record = (await shop.api('GET', `/processes/${view.processId}`)).body;
    const { toolResultBytes, returnedBytes } = record.metrics;
    expect(record.metrics).toMatchObject({ toolCalls: 2 });
    expect(toolResultBytes).toBeGreaterThan(returnedBytes);
    const meta = {
      ...record.metrics,
      ratio: Math.round((toolResultBytes / returnedBytes) * 100) / 100,
      summary: efficiencySummary(record.metrics),
    };
    expect(meta.summary).toMatch(
      /^this run read \d+ B from tools in 2 calls and returned \d+ B to the model \([\d.]+× less\)$/,
    );
    expect(run._meta?.['cyrnel/efficiency']).toEqual(meta);
    expect(view).not.toHaveProperty('efficiency');
    expect(JSON.stringify(run.content)).not.toContain('toolResultBytes');

    const got = await client.callTool({ name: 'get_process', arguments: { processId: view.processId } });
    expect(got._meta?.['cyrnel/efficiency']).toEqual(meta);
    const waited = await client.callTool({ name: 'wait_process', arguments: { processId: view.processId } });
    expect(waited._meta?.['cyrnel/efficiency']).toEqual(meta);
  });
});
