import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/create-logger';
import type { RunningServer } from '../src/index';
import { apiClient, startTestServer, tempDir } from './helpers';
import { startOtlpReceiver, startTracedUpstream, type TracedUpstream } from './tracing-helpers';

const KEY = 'tracing-collector-admin';
const CODE = `const user = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 7 } });
cyrnel.output({ name: user.body.name });`;

/** A port of 127.0.0.1 nobody listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A server tracing to `collector`, with the shop installed, whose log lines are kept. Runs one
 * process with a tool call and answers it with the log.
 */
function useTracedServer(collector: () => Promise<string>) {
  const lines: { level: string; msg: string; [field: string]: unknown }[] = [];
  let upstream: TracedUpstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: RunningServer;
  beforeAll(async () => {
    upstream = await startTracedUpstream();
    dir = await tempDir();
    server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      otel: await collector(),
      urlAllowCidrs: ['127.0.0.1/32'],
      logger: createLogger({ level: 'warn', write: (line) => lines.push(JSON.parse(line)) }),
    });
    await upstream.install(apiClient(server.url, KEY));
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
    await upstream?.close();
  });
  return {
    lines,
    run: () => apiClient(server.url, KEY)('POST', '/processes', { code: CODE, wait: true }),
    /** Resolves once the log has a line about spans that could not be sent. */
    async warned() {
      for (let tries = 0; tries < 600; tries++) {
        const line = lines.find((item) => item.msg.startsWith('tracing: spans could not be sent'));
        if (line) return line;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no warning about the collector; the log: ${JSON.stringify(lines)}`);
    },
  };
}

describe('a collector out of reach', () => {
  let port: number;
  // The exporter retries a refused connection until its timeout (10 s by default): a second here,
  // through the standard variable the exporter thread reads, so the warning comes sooner.
  beforeAll(() => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', '1000');
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });
  const traced = useTracedServer(async () => {
    port = await closedPort();
    return `http://127.0.0.1:${port}`;
  });

  it('is a warning in the log: the run and its tool call succeed', async () => {
    const runs = await Promise.all([traced.run(), traced.run(), traced.run()]);
    for (const run of runs)
      expect(run.body, JSON.stringify(run.body)).toMatchObject({
        exitState: 'success',
        output: { name: 'user-7' },
      });
    const warning = await traced.warned();
    expect(warning).toMatchObject({ level: 'warn', collector: `http://127.0.0.1:${port}/v1/traces` });
    // And the server goes on serving.
    expect((await traced.run()).body.exitState).toBe('success');
  });
});

describe('a collector that refuses the export’s encoding', () => {
  let other: ReturnType<typeof createServer>;
  const traced = useTracedServer(async () => {
    // As a receiver of JSON only (or a gRPC port) answers a protobuf export.
    other = createServer((_request, response) => response.writeHead(415).end('unsupported media type'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    other?.closeAllConnections();
    await new Promise((resolve) => other?.close(resolve));
  });

  it('is a warning in the log: the run and its tool call succeed', async () => {
    const run = await traced.run();
    expect(run.body, JSON.stringify(run.body)).toMatchObject({
      exitState: 'success',
      output: { name: 'user-7' },
    });
    const warning = await traced.warned();
    expect(warning.level).toBe('warn');
    expect((await traced.run()).body.exitState).toBe('success');
  });
});

describe('a server that stops right after a run', () => {
  it('has exported the run’s spans, the egress worker’s included, once its close resolves', async () => {
    const receiver = await startOtlpReceiver();
    const upstream = await startTracedUpstream();
    const dir = await tempDir();
    const server = await startTestServer({
      dataDir: dir.path,
      port: 0,
      apiKey: KEY,
      otel: receiver.url,
      urlAllowCidrs: ['127.0.0.1/32'],
    });
    try {
      const admin = apiClient(server.url, KEY);
      await upstream.install(admin);
      const run = await admin('POST', '/processes', { code: CODE, wait: true });
      expect(run.body.exitState).toBe('success');
      // The exporter sends every 5 s; the stop sends what is left, without waiting for that.
      await server.close();
      const spans = receiver.spans;
      const process = spans.find(
        (span) => span.name === 'cyrnel.process' && span.attributes['cyrnel.process.id'] === run.body.id,
      );
      const call = spans.find(
        (span) => span.name === 'execute_tool shop.getUser' && span.parentSpanId === process?.spanId,
      );
      const egress = spans.find(
        (span) => span.scope === '@cyrnel/adapter-openapi' && span.parentSpanId === call?.spanId,
      );
      expect(process, JSON.stringify(spans.map((span) => span.name))).toBeDefined();
      expect(call).toBeDefined();
      expect(egress?.traceId).toBe(process?.traceId);
    } finally {
      await server.close();
      await dir.remove();
      await upstream.close();
      await receiver.close();
    }
  });
});
