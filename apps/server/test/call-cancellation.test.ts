import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './helpers';

// A tool call's AbortSignal (`InvokeInput.signal`). When its process is killed, times out,
// or the call's deadline passes, the OpenAPI adapter aborts the request to the upstream instead of
// leaving it running: the upstream sees the connection close. The upstream here never answers.

interface Hanging {
  url: string;
  /** Resolves with the request's path once the upstream saw it. */
  arrived(): Promise<string>;
  /** Resolves once a request's connection was closed by the client. */
  closed(): Promise<void>;
  close(): Promise<void>;
}

async function startHanging(): Promise<Hanging> {
  const arrivals: ((path: string) => void)[] = [];
  const closes: (() => void)[] = [];
  const server: Server = createServer((request: IncomingMessage) => {
    arrivals.shift()?.(request.url ?? '');
    request.socket.once('close', () => closes.shift()?.());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived: () => new Promise((resolve) => arrivals.push(resolve)),
    closed: () => new Promise((resolve) => closes.push(resolve)),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const spec = (baseUrl: string) => ({
  openapi: '3.0.3',
  info: { title: 'Hanging', version: '1.0.0' },
  servers: [{ url: baseUrl }],
  paths: { '/slow': { get: { operationId: 'slow', responses: { '200': { description: 'never' } } } } },
});

const CALL = 'await cyrnel.services.hang.tools.slow.invoke({});';

describe('cancelling tool calls', () => {
  // The adapter's own request timeout (10 min) and the host's invoke deadline (60 s) are beyond the
  // test's 30 s: only the cancellation can end these requests while the test runs.
  const { api } = useServer({ allowPrivateUrls: true, maxTimeoutMs: 120_000 });
  let upstream: Hanging;

  /** The process once it is idle again. */
  const idle = async (id: string) => {
    for (;;) {
      const { body } = await api('GET', `/processes/${id}`);
      if (body.state === 'idle') return body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    upstream = await startHanging();
  });
  afterAll(() => upstream?.close());

  it('aborts the upstream request of a call in flight when its process is killed', async () => {
    const installed = await api('POST', '/services', {
      id: 'hang',
      adapter: 'openapi',
      definition: JSON.stringify(spec(upstream.url)),
      // The adapter's own request timeout (default 30 s) stays out of the way.
      config: { timeoutMs: 600_000 },
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    const arrived = upstream.arrived();
    const closed = upstream.closed();
    const created = await api('POST', '/processes', { code: CALL, timeoutMs: 100_000 });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await arrived).toBe('/slow');
    expect((await api('POST', `/processes/${id}/signals/kill`)).status).toBe(200);
    await closed;
    expect(await idle(id)).toMatchObject({ exitState: 'canceled' });
    const calls = await api('GET', `/processes/${id}/calls`);
    expect(calls.body.items).toEqual([
      expect.objectContaining({ serviceId: 'hang', toolId: 'slow', ok: false }),
    ]);
  });

  it("aborts it when the process's deadline passes", async () => {
    const arrived = upstream.arrived();
    const closed = upstream.closed();
    const created = await api('POST', '/processes', { code: CALL, timeoutMs: 1000 });
    await arrived;
    await closed;
    expect(await idle(created.body.id)).toMatchObject({ exitState: 'timeout' });
  });

  it('aborts it when the service is disabled and its adapter drops the connection pool', async () => {
    const arrived = upstream.arrived();
    const closed = upstream.closed();
    const created = await api('POST', '/processes', {
      code: `try { ${CALL} } catch (e) { cyrnel.output({ status: e.status }); }`,
      timeoutMs: 100_000,
    });
    await arrived;
    expect((await api('POST', '/services/hang/enabled', { enabled: false })).status).toBe(200);
    await closed;
    expect(await idle(created.body.id)).toMatchObject({ exitState: 'success' });
    expect((await api('GET', `/processes/${created.body.id}/output`)).body).toEqual({ status: 502 });
  });
});
