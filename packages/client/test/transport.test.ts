import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CyrnelHttpError,
  CyrnelNetworkError,
  CyrnelProcessError,
  CyrnelTimeoutError,
  createClient,
} from '../src/index';
import { type SeenRequest, sendJson, startWireServer, type WireServer } from './wire-server';

let server: WireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Parameters<typeof startWireServer>[0]): Promise<WireServer> {
  server = await startWireServer(handler);
  return server;
}

const PROCESS = {
  id: 3,
  ref: null,
  state: 'idle',
  exitState: 'success',
  error: null,
  timeoutMs: 30000,
  envConfig: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  completedAt: '2026-01-01T00:00:01.000Z',
};

describe('transport', () => {
  it('sends the bearer key, JSON bodies, encoded path segments and boolean queries', async () => {
    const { baseUrl, seen } = await serve((_req, res) =>
      sendJson(res, 200, { items: [], nextCursor: null, hasMore: false }),
    );
    const client = createClient({ baseUrl: `${baseUrl}/`, apiKey: 'k3y' });
    await client.tools.list({ serviceId: 'pets', enabled: true, limit: 5, query: 'a b' });
    await client.tools.setEnabled('we/ird', 'id?#', false);
    const [list, enable] = seen as [SeenRequest, SeenRequest];
    expect(list.method).toBe('GET');
    expect(list.url).toBe('/tools?serviceId=pets&enabled=true&limit=5&query=a+b');
    expect(list.headers.authorization).toBe('Bearer k3y');
    expect(enable.url).toBe('/tools/we%2Fird/id%3F%23/enabled');
    expect(enable.headers['content-type']).toBe('application/json');
    expect(JSON.parse(enable.body)).toEqual({ enabled: false });
  });

  it('sends a call’s trace context as traceparent and tracestate headers, and none without one', async () => {
    const { baseUrl, seen } = await serve((_req, res) => sendJson(res, 201, PROCESS));
    const client = createClient({ baseUrl, apiKey: 'k3y' });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await client.processes.create({ code: '1' }, { trace: { traceparent, tracestate: 'vendor=1' } });
    await client.processes.create({ code: '2' }, { trace: { traceparent } });
    await client.processes.create({ code: '3' });
    const [both, parentOnly, untraced] = seen as [SeenRequest, SeenRequest, SeenRequest];
    expect(both.headers.traceparent).toBe(traceparent);
    expect(both.headers.tracestate).toBe('vendor=1');
    expect(parentOnly.headers.traceparent).toBe(traceparent);
    expect(parentOnly.headers.tracestate).toBeUndefined();
    expect(untraced.headers.traceparent).toBeUndefined();
  });

  it('turns the error envelope into a CyrnelHttpError with status, code, reason, message and details', async () => {
    const { baseUrl } = await serve((_req, res) =>
      sendJson(res, 400, {
        error: 'limit must be a positive integer',
        code: 'invalid_request',
        reason: 'invalid_request',
        details: [{ path: 'limit', message: 'bad' }],
      }),
    );
    const error = await createClient({ baseUrl })
      .services.list({ limit: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CyrnelHttpError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_request',
      reason: 'invalid_request',
      message: 'limit must be a positive integer',
      details: [{ path: 'limit', message: 'bad' }],
    });
  });

  it('reports a non-envelope error response with code and reason unknown', async () => {
    const { baseUrl } = await serve((_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
    );
    const error = await createClient({ baseUrl })
      .health()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'CyrnelHttpError',
      status: 502,
      code: 'unknown',
      reason: 'unknown',
      message: 'GET /health answered 502',
    });
  });

  it('reads 204 answers and text answers', async () => {
    const { baseUrl, seen } = await serve((req, res) => {
      if (req.method === 'DELETE') res.writeHead(204).end();
      else res.writeHead(200, { 'content-type': 'text/markdown' }).end('# Docs');
    });
    const client = createClient({ baseUrl });
    await expect(client.services.delete('pets')).resolves.toBeUndefined();
    await expect(client.environment.docs()).resolves.toBe('# Docs');
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'DELETE /services/pets',
      'GET /environment/docs',
    ]);
  });

  it('raises CyrnelNetworkError when nothing listens', async () => {
    const { baseUrl } = await serve((_req, res) => res.end());
    await server?.close();
    server = undefined;
    const error = await createClient({ baseUrl })
      .health()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CyrnelNetworkError);
    expect(error).not.toBeInstanceOf(CyrnelHttpError);
    expect((error as Error).message).toMatch(/^GET \/health failed/);
  });

  it('raises CyrnelTimeoutError past the deadline, per client and per call', async () => {
    const { baseUrl } = await serve(() => {
      // Never answers.
    });
    const client = createClient({ baseUrl, timeoutMs: 100 });
    const error = await client.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CyrnelTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 100, message: 'GET /health timed out after 100 ms' });
    const perCall = await createClient({ baseUrl })
      .modules.list({}, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(perCall).toMatchObject({ name: 'CyrnelTimeoutError', timeoutMs: 50 });
  });

  it('rejects with the abort reason when the signal aborts, before or during the call', async () => {
    const { baseUrl } = await serve(() => {
      // Never answers.
    });
    const client = createClient({ baseUrl });
    const controller = new AbortController();
    const pending = client.processes.get(1, { signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 20);
    const error = await pending;
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(error).not.toBeInstanceOf(CyrnelNetworkError);
    const reason = new Error('stop');
    await expect(client.health({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('installs a service from a parsed definition as JSON text', async () => {
    const { baseUrl, seen } = await serve((_req, res) => sendJson(res, 201, { id: 'pets' }));
    await createClient({ baseUrl }).services.install({
      id: 'pets',
      adapter: 'openapi',
      definition: { openapi: '3.1.0' },
      secrets: { key: 's' },
      enabled: true,
    });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      id: 'pets',
      adapter: 'openapi',
      definition: '{"openapi":"3.1.0"}',
      secrets: { key: 's' },
      enabled: true,
    });
  });

  it('runs code with wait:true and throws CyrnelProcessError on failure when asked', async () => {
    const { baseUrl, seen } = await serve((req, res) => {
      const failed = JSON.parse(req.body).code === 'throw 1';
      sendJson(res, 201, {
        ...PROCESS,
        exitState: failed ? 'failed' : 'success',
        error: failed ? 'Uncaught 1' : null,
        output: failed ? {} : { sum: 3 },
        stdout: '',
        stderr: '',
      });
    });
    const client = createClient({ baseUrl });
    const ok = await client.processes.run('cyrnel.output({ sum: 3 })', { ref: 'r', throwOnFailure: true });
    expect(ok.output).toEqual({ sum: 3 });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      code: 'cyrnel.output({ sum: 3 })',
      ref: 'r',
      wait: true,
    });
    const failed = await client.processes.run('throw 1').catch((e: unknown) => e);
    expect(failed).toMatchObject({ exitState: 'failed' });
    const thrown = await client.processes.run('throw 1', { throwOnFailure: true }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(CyrnelProcessError);
    expect(thrown).toMatchObject({
      message: 'process 3 ended failed: Uncaught 1',
      result: { error: 'Uncaught 1' },
    });
  });

  it('gives a waiting run no client deadline (the server bounds it), not the client default', async () => {
    const { baseUrl } = await serve((req, res) => {
      const answer = () =>
        sendJson(res, req.method === 'POST' ? 201 : 200, { ...PROCESS, output: {}, stdout: '', stderr: '' });
      setTimeout(answer, 150);
    });
    const client = createClient({ baseUrl, timeoutMs: 50 });
    await expect(client.processes.get(3)).rejects.toBeInstanceOf(CyrnelTimeoutError);
    await expect(client.processes.run('cyrnel.output({})', { timeoutMs: 100 })).resolves.toMatchObject({
      id: 3,
    });
    await expect(client.processes.create({ code: '', wait: true, timeoutMs: null })).resolves.toMatchObject({
      id: 3,
    });
  });

  it('bounds a waiting run by requestTimeoutMs, separate from the process timeoutMs it sends', async () => {
    const { baseUrl, seen } = await serve(() => {
      // Never answers.
    });
    // Room for the request to be sent on a busy machine before the deadline ends it.
    const error = await createClient({ baseUrl })
      .processes.run('1', { timeoutMs: 60_000, requestTimeoutMs: 2000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CyrnelTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 2000 });
    // The process timeout travels to the server; the HTTP deadline does not.
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 30_000 });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ code: '1', timeoutMs: 60_000, wait: true });
  });

  it('aborts a waiting run with its signal', async () => {
    const { baseUrl } = await serve(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = createClient({ baseUrl }).processes.run('1', { signal: controller.signal });
    controller.abort(new Error('user gave up'));
    await expect(pending).rejects.toThrow('user gave up');
  });

  it('walks every page of a list with the cursor', async () => {
    const { baseUrl, seen } = await serve((req, res) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor');
      if (cursor === null)
        sendJson(res, 200, { items: [{ id: 'a' }, { id: 'b' }], nextCursor: 'c2', hasMore: true });
      else sendJson(res, 200, { items: [{ id: 'c' }], nextCursor: null, hasMore: false });
    });
    const ids: string[] = [];
    for await (const service of createClient({ baseUrl }).services.iterate({ limit: 2, enabled: false })) {
      ids.push(service.id);
    }
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(seen.map((r) => r.url)).toEqual([
      '/services?limit=2&enabled=false',
      '/services?limit=2&enabled=false&cursor=c2',
    ]);
  });

  it('stops a paginated walk at the next item once aborted, without fetching another page', async () => {
    const { baseUrl, seen } = await serve((req, res) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor');
      sendJson(res, 200, {
        items: [{ id: `${cursor ?? 'p1'}-a` }, { id: `${cursor ?? 'p1'}-b` }],
        nextCursor: 'p2',
        hasMore: true,
      });
    });
    const client = createClient({ baseUrl });
    const controller = new AbortController();
    const ids: string[] = [];
    const error = await (async () => {
      for await (const tool of client.tools.iterate({ limit: 2 }, { signal: controller.signal })) {
        ids.push(tool.id);
        controller.abort(new Error('enough'));
      }
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ message: 'enough' });
    // The rest of the page already held was not yielded, and no further page was asked for.
    expect(ids).toEqual(['p1-a']);
    expect(seen).toHaveLength(1);
  });

  it('cancels the page request on the wire when a paginated walk is aborted', async () => {
    const paging = new AbortController();
    const { baseUrl, seen } = await serve((req, res) => {
      if (new URL(req.url, 'http://x').searchParams.get('cursor') === null) {
        sendJson(res, 200, { items: [{ id: 'a' }], nextCursor: 'p2', hasMore: true });
      } else {
        // The second page is on the wire and never answers: the consumer gives up now.
        paging.abort(new Error('gave up waiting'));
      }
    });
    const walked: string[] = [];
    const error = await (async () => {
      for await (const process of createClient({ baseUrl }).processes.iterate(
        {},
        { signal: paging.signal },
      )) {
        walked.push(String(process.id));
      }
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ message: 'gave up waiting' });
    expect(walked).toEqual(['a']);
    expect(seen.map((r) => r.url)).toEqual(['/processes', '/processes?cursor=p2']);
  });
});
