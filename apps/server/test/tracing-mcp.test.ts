import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, startTestServer, tempDir } from './helpers';
import {
  callerTrace,
  type OtlpReceiver,
  type ReceivedSpan,
  spanNamed,
  startOtlpReceiver,
} from './tracing-helpers';

const ADMIN = 'tracing-mcp-admin-key';
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** One request the MCP server received: its headers and its JSON-RPC message. */
interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly message:
    | { method?: string; params?: { name?: string; _meta?: Record<string, unknown> } }
    | undefined;
}

/** The official SDK's MCP server over Streamable HTTP (stateless) on 127.0.0.1 with a `ping` tool, recording what it received. */
async function startMcpUpstream(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const message = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    received.push({ headers: request.headers, message });
    const mcp = new McpServer({ name: 'notes', version: '1.0.0' });
    mcp.registerTool('ping', { description: 'Answer pong.' }, async () => ({
      content: [{ type: 'text', text: '"pong"' }],
    }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, message);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The `tools/call` requests of `tool` the MCP server received since `from`. */
const toolCalls = (received: readonly Received[], from: number) =>
  received.slice(from).filter((item) => item.message?.method === 'tools/call');

/** The spans of one run of `service.ping` in `traceId`: the run, its tool call and the adapter's MCP request. */
/** Call the `notes` service's ping as a direct tool with a caller's `_meta.traceparent`, then close the client. */
async function callPingTraced(
  client: Client,
): Promise<{ caller: ReturnType<typeof callerTrace>; name: string }> {
  const caller = callerTrace();
  try {
    const { tools } = await client.listTools();
    const name = tools.find((tool) => tool.name.startsWith('notes') && tool.name.endsWith('ping'))?.name;
    expect(name, JSON.stringify(tools.map((tool) => tool.name))).toBeDefined();
    const result = await client.callTool({
      name: String(name),
      arguments: {},
      _meta: { traceparent: caller.traceparent },
    });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    return { caller, name: String(name) };
  } finally {
    await client.close();
  }
}

function pingSpans(spans: readonly ReceivedSpan[], traceId: string, service: string) {
  const run = spanNamed(spans, traceId, 'cyrnel.process');
  const call = spanNamed(spans, traceId, `execute_tool ${service}.ping`);
  const mcp = spans.find((span) => span.traceId === traceId && span.scope === '@cyrnel/adapter-mcp');
  if (!run || !call || !mcp) return undefined;
  return { run, call, mcp };
}

describe('OpenTelemetry traces through MCP: the adapter’s HTTP requests, /mcp/tools and the stdio bridge', () => {
  let receiver: OtlpReceiver;
  let upstream: Awaited<ReturnType<typeof startMcpUpstream>>;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: RunningServer;
  let agentKey: string;
  let agent: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    upstream = await startMcpUpstream();
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: ADMIN,
      otel: receiver.url,
      urlAllowCidrs: ['127.0.0.1/32'],
    });
    const admin = apiClient(server.url, ADMIN);
    for (const id of ['notes', 'quiet']) {
      const installed = await admin('POST', '/services', {
        id,
        adapter: 'mcp',
        definition: JSON.stringify({ transport: 'http', url: upstream.url }),
        enabled: true,
      });
      expect(installed.status, installed.text).toBe(201);
    }
    const patched = await admin('PATCH', '/services/quiet/config', [
      { op: 'add', path: '/propagateTrace', value: false },
    ]);
    expect(patched.status, patched.text).toBe(200);
    const created = await admin('POST', '/keys', { name: 'traced-mcp-agent', role: 'agent' });
    expect(created.status).toBe(201);
    agentKey = created.body.key;
    agent = apiClient(server.url, agentKey);
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
    await upstream?.close();
    await receiver?.close();
  });

  it('hands the MCP request’s span to an HTTP MCP server in traceparent and tracestate headers and in _meta', async () => {
    const caller = callerTrace();
    const before = upstream.received.length;
    const created = await agent(
      'POST',
      '/processes',
      { code: 'cyrnel.output({ answer: await cyrnel.services.notes.tools.ping.invoke({}) });', wait: true },
      { traceparent: caller.traceparent, tracestate: 'vendor=opaque' },
    );
    expect(created.body, JSON.stringify(created.body)).toMatchObject({
      exitState: 'success',
      output: { answer: 'pong' },
    });
    const { run, call, mcp } = await receiver.until((spans) => pingSpans(spans, caller.traceId, 'notes'));
    expect(run.parentSpanId).toBe(spanNamed(receiver.spans, caller.traceId, 'POST /processes')?.spanId);
    expect(call.parentSpanId).toBe(run.spanId);
    expect(mcp.parentSpanId).toBe(call.spanId);
    expect(mcp.attributes).toMatchObject({ 'network.transport': 'tcp', 'cyrnel.service': 'notes' });
    const [sent, ...more] = toolCalls(upstream.received, before);
    expect(more).toEqual([]);
    const traceparent = `00-${caller.traceId}-${mcp.spanId}-01`;
    expect(sent?.headers.traceparent).toBe(traceparent);
    expect(sent?.headers.tracestate).toBe('vendor=opaque');
    expect(sent?.message?.params?._meta).toMatchObject({ traceparent, tracestate: 'vendor=opaque' });
  });

  it('sends neither header nor _meta to a service whose propagateTrace is false, and still traces its call', async () => {
    const caller = callerTrace();
    const before = upstream.received.length;
    const created = await agent(
      'POST',
      '/processes',
      { code: 'cyrnel.output({ answer: await cyrnel.services.quiet.tools.ping.invoke({}) });', wait: true },
      { traceparent: caller.traceparent },
    );
    expect(created.body.exitState).toBe('success');
    const { call, mcp } = await receiver.until((spans) => pingSpans(spans, caller.traceId, 'quiet'));
    expect(mcp.parentSpanId).toBe(call.spanId);
    const sent = upstream.received.slice(before);
    expect(toolCalls(sent, 0)).toHaveLength(1);
    for (const item of sent) {
      expect(item.headers.traceparent).toBeUndefined();
      expect(item.headers.tracestate).toBeUndefined();
      expect(item.message?.params?._meta?.traceparent).toBeUndefined();
    }
  });

  it('continues a /mcp/tools client’s trace from _meta.traceparent: MCP request → process → tool call → MCP request', async () => {
    const client = new Client({ name: 'tracing-tools-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/tools`), {
        requestInit: { headers: { authorization: `Bearer ${agentKey}` } },
      }),
    );
    const { caller, name } = await callPingTraced(client);
    const { run, call, mcp } = await receiver.until((spans) => pingSpans(spans, caller.traceId, 'notes'));
    const request = spanNamed(receiver.spans, caller.traceId, `tools/call ${name}`);
    expect(request?.scope).toBe('@cyrnel/mcp');
    expect(request?.parentSpanId).toBe(caller.spanId);
    expect(run.parentSpanId).toBe(request?.spanId);
    expect(call.parentSpanId).toBe(run.spanId);
    expect(mcp.parentSpanId).toBe(call.spanId);
  });

  /** A client of `cyrnel-server mcp` (with `args`) bridging to the server, or embedding a host with `env`. */
  const bridge = async (
    args: string[],
    env: Record<string, string> = { CYRNEL_URL: server.url, CYRNEL_API_KEY: agentKey },
  ) => {
    const client = new Client({ name: 'tracing-bridge-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', ...args],
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'pipe',
      }),
    );
    return client;
  };

  it('continues a stdio client’s trace in an embedded host traced to the collector (mcp --embedded)', async () => {
    const embedded = await tempDir();
    const caller = callerTrace();
    try {
      const client = await bridge(['--embedded', '--data-dir', embedded.path], { CYRNEL_OTEL: receiver.url });
      try {
        const result = await client.callTool({
          name: 'execute_typescript',
          arguments: { code: 'cyrnel.output({ sum: 1 + 2 });' },
          _meta: { traceparent: caller.traceparent },
        });
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
      } finally {
        // The bridge ends with stdin and sends its last spans then.
        await client.close();
      }
      const { request, run } = await receiver.until((spans) => {
        const request = spanNamed(spans, caller.traceId, 'tools/call execute_typescript');
        const run = spanNamed(spans, caller.traceId, 'cyrnel.process');
        return request && run ? { request, run } : undefined;
      });
      expect(request.parentSpanId).toBe(caller.spanId);
      expect(run.parentSpanId).toBe(request.spanId);
      expect(run.attributes['cyrnel.process.exit_state']).toBe('success');
    } finally {
      await embedded.remove();
    }
  });

  it('continues a stdio client’s trace through the bridge: execute_typescript’s _meta.traceparent reaches the server', async () => {
    const client = await bridge([]);
    const caller = callerTrace();
    try {
      const result = await client.callTool({
        name: 'execute_typescript',
        arguments: { code: 'cyrnel.output({ answer: await cyrnel.services.notes.tools.ping.invoke({}) });' },
        _meta: { traceparent: caller.traceparent, tracestate: 'vendor=bridged' },
      });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
    } finally {
      await client.close();
    }
    const { run, call, mcp } = await receiver.until((spans) => pingSpans(spans, caller.traceId, 'notes'));
    const request = spanNamed(receiver.spans, caller.traceId, 'POST /processes');
    expect(request?.parentSpanId).toBe(caller.spanId);
    expect(run.parentSpanId).toBe(request?.spanId);
    expect(call.parentSpanId).toBe(run.spanId);
    expect(mcp.parentSpanId).toBe(call.spanId);
  });

  it('continues a stdio client’s trace through the direct-tools bridge (mcp --tools)', async () => {
    const client = await bridge(['--tools']);
    const { caller, name } = await callPingTraced(client);
    const { run, call, mcp } = await receiver.until((spans) => pingSpans(spans, caller.traceId, 'notes'));
    const request = spanNamed(receiver.spans, caller.traceId, `tools/call ${name}`);
    expect(request?.parentSpanId).toBe(caller.spanId);
    expect(run.parentSpanId).toBe(request?.spanId);
    expect(call.parentSpanId).toBe(run.spanId);
    expect(mcp.parentSpanId).toBe(call.spanId);
  });
});
