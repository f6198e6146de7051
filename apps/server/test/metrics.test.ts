import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, shopSpec, UPSTREAM_KEY, useShopServer } from './helpers';
import { closedUrl, has, parsePrometheus, type Sample, startFailingUpstream, total } from './metrics-helpers';

const ADMIN = 'metrics-admin';

/** The same shop, with the wrong key (401), on an upstream that is down (503), or unreachable. */
const CALLS = `
const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
const orders = await cyrnel.services.shop.tools.listOrders.invoke({ query: { userId: 7 } });
const denied = await cyrnel.services.shopdenied.tools.getUser.invoke({ path: { id: 7 } });
const down = await cyrnel.services.shopdown.tools.getUser.invoke({ path: { id: 7 } });
const gone = await cyrnel.services.shopgone.tools.getUser.invoke({ path: { id: 7 } }).then(() => 'answered', (e) => e.reason);
const made = await cyrnel.services['made-up-xyz'].tools.anything.invoke({}).then(() => 'answered', (e) => e.reason);
cyrnel.output({ statuses: [user.status, orders.status, denied.status, down.status], gone, made });
`;

describe('GET /metrics after a real workload', () => {
  const { api, upstream } = useShopServer({ apiKey: ADMIN });
  let failing: Awaited<ReturnType<typeof startFailingUpstream>>;
  const scrape = async (): Promise<Sample[]> => {
    const response = await api('GET', '/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheus(response.text);
  };
  const install = async (id: string, baseUrl: string, key: string) => {
    const installed = await api('POST', '/services', {
      id,
      adapter: 'openapi',
      definition: JSON.stringify(shopSpec(baseUrl)),
      secrets: { shopKey: key },
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
  };
  const run = async (code: string, timeoutMs?: number): Promise<Json> => {
    const response = await api('POST', '/processes', {
      code,
      wait: true,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };

  beforeAll(async () => {
    failing = await startFailingUpstream();
  });
  afterAll(async () => {
    await failing?.close();
  });

  it('counts tool calls by service, tool and outcome, their durations, and upstream answers by class', async () => {
    await install('shopdenied', upstream().url, 'wrong-key');
    await install('shopdown', failing.url, UPSTREAM_KEY);
    await install('shopgone', await closedUrl(), UPSTREAM_KEY);
    const before = await scrape();
    const result = await run(CALLS);
    expect(result.exitState).toBe('success');
    expect(result.output).toEqual({
      statuses: [200, 200, 401, 503],
      gone: 'upstream_failed',
      made: 'service_not_found',
    });
    const after = await scrape();
    const grew = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(grew('cyrnel_tool_calls_total', { service: 'shop', tool: 'getUser', outcome: 'ok' })).toBe(1);
    expect(grew('cyrnel_tool_calls_total', { service: 'shop', tool: 'listOrders', outcome: 'ok' })).toBe(1);
    // 4xx and 5xx answers are answers: the call succeeded, the upstream said no.
    expect(grew('cyrnel_tool_calls_total', { service: 'shopdenied', tool: 'getUser', outcome: 'ok' })).toBe(
      1,
    );
    expect(
      grew('cyrnel_tool_calls_total', { service: 'shopgone', tool: 'getUser', outcome: 'upstream_failed' }),
    ).toBe(1);
    expect(grew('cyrnel_tool_call_seconds_count', { service: 'shop', tool: 'getUser' })).toBe(1);
    expect(grew('cyrnel_tool_call_seconds_sum', { service: 'shop', tool: 'getUser' })).toBeGreaterThan(0);
    expect(grew('cyrnel_tool_call_seconds_bucket', { service: 'shop', tool: 'getUser', le: '+Inf' })).toBe(1);
    expect(grew('cyrnel_upstream_responses_total', { service: 'shop', class: '2xx' })).toBe(2);
    expect(grew('cyrnel_upstream_responses_total', { service: 'shopdenied', class: '4xx' })).toBe(1);
    expect(grew('cyrnel_upstream_responses_total', { service: 'shopdown', class: '5xx' })).toBe(1);
    expect(grew('cyrnel_upstream_responses_total', { service: 'shopgone', class: 'network_error' })).toBe(1);
    // A call to a service that does not exist is counted by its reason only: the code's ids are
    // never labels.
    expect(grew('cyrnel_tool_calls_refused_total', { reason: 'service_not_found' })).toBe(1);
    expect(after.some((sample) => Object.values(sample.labels).includes('made-up-xyz'))).toBe(false);
    // The run, and the store calls that recorded it.
    expect(grew('cyrnel_process_runs_total', { exit_state: 'success', reason: 'none' })).toBe(1);
    expect(grew('cyrnel_process_run_seconds_count', { exit_state: 'success' })).toBe(1);
    expect(grew('cyrnel_process_queue_wait_seconds_count', {})).toBe(1);
    expect(grew('cyrnel_store_query_seconds_count', { store: 'processes', operation: 'insert' })).toBe(1);
    expect(
      grew('cyrnel_store_query_seconds_count', { store: 'processes', operation: 'openCalls' }),
    ).toBeGreaterThan(0);
    expect(grew('cyrnel_http_requests_total', { method: 'POST', route: '/processes', status: '201' })).toBe(
      1,
    );
  });

  it('counts runs by exit state and reason: failed, timed out, killed', async () => {
    const before = await scrape();
    expect((await run('throw new Error("boom");')).exitState).toBe('failed');
    expect((await run('for (;;) {}', 300)).exitState).toBe('timeout');
    const after = await scrape();
    const grew = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(grew('cyrnel_process_runs_total', { exit_state: 'failed', reason: 'none' })).toBe(1);
    expect(grew('cyrnel_process_runs_total', { exit_state: 'timeout', reason: 'process_timeout' })).toBe(1);
    expect(grew('cyrnel_process_run_seconds_count', { exit_state: 'timeout' })).toBe(1);
  });

  it('shows a running process, its busy sandbox, then the kill', async () => {
    const created = await api('POST', '/processes', { code: 'for (;;) {}', timeoutMs: 60_000 });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    await expect
      .poll(async () => total(await scrape(), 'cyrnel_processes', { state: 'running' }), { timeout: 30_000 })
      .toBe(1);
    const running = await scrape();
    expect(total(running, 'cyrnel_sandbox_children', { state: 'busy' })).toBeGreaterThanOrEqual(1);
    expect(total(running, 'cyrnel_sandbox_executions', { state: 'running' })).toBe(1);
    expect((await api('POST', `/processes/${id}/signals/kill`)).status).toBe(200);
    await expect
      .poll(async () => total(await scrape(), 'cyrnel_processes', { state: 'running' }), { timeout: 30_000 })
      .toBe(0);
    const after = await scrape();
    expect(
      total(after, 'cyrnel_process_runs_total', { exit_state: 'canceled', reason: 'process_killed' }),
    ).toBe(1);
  });

  it('shows a call waiting for a person among the pending approvals', async () => {
    await install('shopask', upstream().url, UPSTREAM_KEY);
    expect((await api('PUT', '/services/shopask/policy', { tools: { getUser: 'ask' } })).status).toBe(200);
    const created = await api('POST', '/processes', {
      code: 'await cyrnel.services.shopask.tools.getUser.invoke({ path: { id: 1 } });',
    });
    const id = created.body.id as number;
    await expect
      .poll(async () => total(await scrape(), 'cyrnel_approvals_pending'), { timeout: 30_000 })
      .toBe(1);
    expect(total(await scrape(), 'cyrnel_processes', { state: 'waiting' })).toBe(1);
    await api('POST', `/processes/${id}/signals/kill`);
    await expect
      .poll(async () => total(await scrape(), 'cyrnel_approvals_pending'), { timeout: 30_000 })
      .toBe(0);
  });

  it("serves the workers' and the queue's gauges, the store's histogram and Node's event-loop lag", async () => {
    const samples = await scrape();
    expect(total(samples, 'cyrnel_queue_depth')).toBe(0);
    expect(total(samples, 'cyrnel_egress_workers')).toBe(2);
    expect(has(samples, 'cyrnel_egress_calls_in_flight')).toBe(true);
    expect(total(samples, 'cyrnel_validation_workers')).toBeGreaterThanOrEqual(1);
    expect(has(samples, 'cyrnel_validation_queue_depth')).toBe(true);
    expect(has(samples, 'cyrnel_sandbox_pool_waits_total')).toBe(true);
    expect(has(samples, 'cyrnel_sandbox_crashes_total')).toBe(true);
    expect(has(samples, 'nodejs_eventloop_lag_seconds')).toBe(true);
    expect(has(samples, 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(total(samples, 'cyrnel_info')).toBe(1);
    // Never a process id or a key id among the labels.
    const labelNames = new Set(samples.flatMap((sample) => Object.keys(sample.labels)));
    for (const forbidden of ['id', 'process_id', 'processId', 'key', 'key_id', 'keyId'])
      expect(labelNames.has(forbidden), forbidden).toBe(false);
  });
});
