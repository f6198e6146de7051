import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, startTestServer, tempDir, UPSTREAM_KEY } from './helpers';
import {
  callerTrace,
  type OtlpReceiver,
  type ReceivedSpan,
  spanNamed,
  startOtlpReceiver,
  startTracedUpstream,
  type TracedUpstream,
} from './tracing-helpers';

const ADMIN = 'tracing-admin-key';
/** A parameter value and the answer it gets: neither may reach a span. */
const USER_ID = 731_905;
const CODE = `const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: ${USER_ID} } });
cyrnel.output({ status: user.status, name: user.body.name });`;

/** The spans of one run in `traceId`: its request (if any), the run, its tool call and the egress request. */
function runSpans(spans: readonly ReceivedSpan[], traceId: string, requestName?: string) {
  const request = requestName ? spanNamed(spans, traceId, requestName) : undefined;
  const run = spanNamed(spans, traceId, 'cyrnel.process');
  const call = spanNamed(spans, traceId, 'execute_tool shop.getUser');
  const egress = spans.find((span) => span.traceId === traceId && span.scope === '@cyrnel/adapter-openapi');
  if ((requestName && !request) || !run || !call || !egress) return undefined;
  return { request, run, call, egress };
}

describe('OpenTelemetry traces of a server with a collector', () => {
  let receiver: OtlpReceiver;
  let upstream: TracedUpstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: RunningServer;
  let admin: ReturnType<typeof apiClient>;
  let agent: ReturnType<typeof apiClient>;
  let agentKey: { id: string; key: string; principalId: string };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    upstream = await startTracedUpstream();
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: ADMIN,
      otel: receiver.url,
      otelArgumentShapes: true,
      urlAllowCidrs: ['127.0.0.1/32'],
    });
    admin = apiClient(server.url, ADMIN);
    await upstream.install(admin);
    const created = await admin('POST', '/keys', { name: 'traced-agent', role: 'agent' });
    expect(created.status).toBe(201);
    agentKey = { id: created.body.id, key: created.body.key, principalId: created.body.principalId };
    agent = apiClient(server.url, agentKey.key);
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
    await upstream?.close();
    await receiver?.close();
  });

  it('traces a run from the request through its tool call to the upstream, in the caller’s trace, with no value or secret in it', async () => {
    const caller = callerTrace();
    const created = await agent(
      'POST',
      '/processes',
      { code: CODE, wait: true },
      { traceparent: caller.traceparent, tracestate: 'vendor=opaque' },
    );
    expect(created.status).toBe(201);
    expect(created.body, JSON.stringify(created.body)).toMatchObject({
      exitState: 'success',
      output: { status: 200, name: `user-${USER_ID}` },
    });
    const { request, run, call, egress } = await receiver.until((spans) =>
      runSpans(spans, caller.traceId, 'POST /processes'),
    );
    // request → process → tool call → egress, in the caller's trace.
    expect(request?.parentSpanId).toBe(caller.spanId);
    expect(run.parentSpanId).toBe(request?.spanId);
    expect(call.parentSpanId).toBe(run.spanId);
    expect(egress.parentSpanId).toBe(call.spanId);
    // The upstream was handed the egress request's own span.
    const sent = upstream.received.find((item) => item.path === `/users/${USER_ID}`);
    expect(sent?.headers.traceparent).toBe(`00-${caller.traceId}-${egress.spanId}-01`);
    expect(sent?.headers.tracestate).toBe('vendor=opaque');
    // Who, what, how it ended.
    expect(request?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/processes',
      'http.response.status_code': 201,
      'cyrnel.key_id': agentKey.id,
    });
    expect(run.attributes).toMatchObject({
      'cyrnel.process.id': created.body.id,
      'cyrnel.key_id': agentKey.id,
      'cyrnel.process.exit_state': 'success',
      'cyrnel.process.calls': 1,
    });
    expect(run.attributes['cyrnel.process.queued_ms']).toBeGreaterThanOrEqual(0);
    expect(run.attributes['cyrnel.process.running_ms']).toBeGreaterThanOrEqual(0);
    expect(spanNamed(receiver.spans, caller.traceId, 'cyrnel.process.queued')?.parentSpanId).toBe(run.spanId);
    expect(call.attributes).toMatchObject({
      'cyrnel.service': 'shop',
      'cyrnel.tool': 'getUser',
      'cyrnel.call.ok': true,
      'cyrnel.policy': 'allow',
      'cyrnel.policy.outcome': 'allowed',
      // The shape only: the key and the type of its value.
      'cyrnel.call.argument_shape': '{"path":{"id":"number"}}',
    });
    expect(call.events.map((event) => event.name)).toContain('cyrnel.policy.decision');
    expect(egress.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'url.template': '/users/{id}',
      'server.address': '127.0.0.1',
    });
    expect(egress.attributes['http.response.body.size']).toBeGreaterThan(0);
    // Sent as protobuf, OTLP's default encoding.
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/x-protobuf']));
    // Never a parameter value, an answer or a secret.
    const exported = receiver.bodies.join('\n');
    for (const hidden of [String(USER_ID), `user-${USER_ID}`, UPSTREAM_KEY, agentKey.key, ADMIN])
      expect(exported).not.toContain(hidden);
  });

  it('traces a run’s later calls of a tool, which the egress gateway makes without asking the main thread, as the first', async () => {
    const caller = callerTrace();
    const ids = [11, 12, 13];
    const code = `for (const id of ${JSON.stringify(ids)}) await cyrnel.services.shop.tools.getUser.invoke({ path: { id } });`;
    const created = await agent(
      'POST',
      '/processes',
      { code, wait: true },
      { traceparent: caller.traceparent },
    );
    expect(created.body, JSON.stringify(created.body)).toMatchObject({ exitState: 'success' });
    const { run, calls, egress } = await receiver.until((spans) => {
      const run = spanNamed(spans, caller.traceId, 'cyrnel.process');
      const calls = spans.filter(
        (span) => span.traceId === caller.traceId && span.name === 'execute_tool shop.getUser',
      );
      const egress = spans.filter(
        (span) => span.traceId === caller.traceId && span.scope === '@cyrnel/adapter-openapi',
      );
      return run && calls.length === ids.length && egress.length === ids.length
        ? { run, calls, egress }
        : undefined;
    });
    // Each call a child of the run, with its decision and shape; each request a child of its own call.
    for (const call of calls) {
      expect(call.parentSpanId).toBe(run.spanId);
      expect(call.attributes).toMatchObject({
        'cyrnel.policy': 'allow',
        'cyrnel.policy.outcome': 'allowed',
        'cyrnel.call.ok': true,
        'cyrnel.call.argument_shape': '{"path":{"id":"number"}}',
      });
    }
    expect(new Set(calls.map((call) => call.spanId)).size).toBe(ids.length);
    expect(egress.map((span) => span.parentSpanId).sort()).toEqual(calls.map((call) => call.spanId).sort());
    // The upstream was handed each request's own span.
    for (const id of ids) {
      const sent = upstream.received.find((item) => item.path === `/users/${id}`);
      expect(egress.map((span) => `00-${caller.traceId}-${span.spanId}-01`)).toContain(
        sent?.headers.traceparent,
      );
    }
  });

  it('continues an MCP client’s trace from _meta.traceparent of execute_typescript', async () => {
    const caller = callerTrace();
    const client = new Client({ name: 'tracing-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agentKey.key}` } },
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({
        name: 'execute_typescript',
        arguments: { code: CODE },
        _meta: { traceparent: caller.traceparent },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const { run, call, egress } = await receiver.until((spans) => runSpans(spans, caller.traceId));
    const mcpCall = spanNamed(receiver.spans, caller.traceId, 'tools/call execute_typescript');
    expect(mcpCall?.parentSpanId).toBe(caller.spanId);
    expect(run.parentSpanId).toBe(mcpCall?.spanId);
    expect(call.parentSpanId).toBe(run.spanId);
    expect(egress.parentSpanId).toBe(call.spanId);
  });

  it('sends no traceparent to a service whose propagateTrace is false, and still traces its calls', async () => {
    const patched = await admin('PATCH', '/services/shop/config', [
      { op: 'add', path: '/propagateTrace', value: false },
    ]);
    expect(patched.status).toBe(200);
    const caller = callerTrace();
    const before = upstream.received.length;
    const created = await agent(
      'POST',
      '/processes',
      { code: CODE, wait: true },
      { traceparent: caller.traceparent },
    );
    expect(created.body.exitState).toBe('success');
    const { egress } = await receiver.until((spans) => runSpans(spans, caller.traceId, 'POST /processes'));
    expect(egress.attributes['http.response.status_code']).toBe(200);
    const sent = upstream.received.slice(before).find((item) => item.path === `/users/${USER_ID}`);
    expect(sent).toBeDefined();
    expect(sent?.headers.traceparent).toBeUndefined();
    await admin('PATCH', '/services/shop/config', [{ op: 'remove', path: '/propagateTrace' }]);
  });
});
