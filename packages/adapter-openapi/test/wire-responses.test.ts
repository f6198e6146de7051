import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from './echo-server';
import { type Installed, install } from './harness';
import { useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

const any = { description: 'any' };
const document = (port: number) => ({
  openapi: '3.1.0',
  info: { title: 'responses', version: '1' },
  servers: [{ url: 'http://127.0.0.1:{port}/v1', variables: { port: { default: '1' } } }],
  paths: {
    '/echo': { get: { operationId: 'echo', responses: { '200': any } } },
    '/other': {
      servers: [{ url: 'http://127.0.0.1:{port}/path-level' }],
      get: { operationId: 'pathLevel', responses: { '200': any } },
    },
    '/op': {
      get: {
        operationId: 'opLevel',
        servers: [{ url: `http://127.0.0.1:${port}/op-level` }],
        responses: { '200': any },
      },
    },
    '/_/status/{code}': {
      get: {
        operationId: 'status',
        parameters: [{ name: 'code', in: 'path', required: true, schema: { type: 'integer' } }],
      },
    },
    '/_/redirect/{n}': {
      post: {
        operationId: 'redirect',
        parameters: [{ name: 'n', in: 'path', required: true, schema: { type: 'integer' } }],
      },
    },
    '/_/text': { get: { operationId: 'text' } },
    '/_/bytes': { get: { operationId: 'bytes' } },
    '/_/empty': { get: { operationId: 'empty' } },
    '/_/slow': { get: { operationId: 'slow' } },
    '/_/stall': { get: { operationId: 'stall' } },
    '/_/goto/{code}': {
      post: {
        operationId: 'gotoPost',
        security: [{ bearer: [] }],
        parameters: [
          { name: 'code', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'to', in: 'query', required: true, schema: { type: 'string' } },
        ],
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
});

let server: EchoServer;
let service: Installed;
let port: number;

beforeAll(async () => {
  server = await startEchoServer();
  port = Number(new URL(server.url).port);
  service = await install(checker, document(port), { serverVariables: { port: String(port) } }, {});
});

afterAll(async () => {
  await service.adapter.teardown();
  await server.close();
});

describe('responses and transport', () => {
  it('does use server variables and path- and operation-level servers while baseUrl is the default', async () => {
    expect(
      (service.definition.configSchema.properties as Record<string, { default?: string }>).baseUrl?.default,
    ).toBe('http://127.0.0.1:1/v1');
    expect((await service.echo('echo', {})).path).toBe('/v1/echo');
    expect((await service.echo('pathLevel', {})).path).toBe('/path-level/other');
    expect((await service.echo('opLevel', {})).path).toBe('/op-level/op');
  });

  it('does let an explicit baseUrl override every server', async () => {
    const other = await install(checker, document(port), { baseUrl: `${server.url}/base/` });
    expect((await other.echo('opLevel', {})).path).toBe('/base/op');
    await other.adapter.teardown();
  });

  it('does return JSON parsed with lower-case headers, and non-2xx statuses instead of throwing', async () => {
    const result = await service.call('status', { path: { code: 404 } });
    expect(result.status).toBe(404);
    expect(result.headers['content-type']).toBe('application/json');
    expect((result.body as { path: string }).path).toBe('/v1/_/status/404');
    expect((await service.call('status', { path: { code: 500 } })).status).toBe(500);
  });

  it('does return text, binary as base64 and null for empty bodies', async () => {
    expect((await service.call('text', {})).body).toBe('hello ✓');
    expect((await service.call('bytes', {})).body).toEqual({
      base64: Buffer.from([0, 1, 2, 255]).toString('base64'),
      contentType: 'application/octet-stream',
    });
    const empty = await service.call('empty', {});
    expect([empty.status, empty.body]).toEqual([204, null]);
  });

  it('does follow up to 5 redirects (302 after POST becomes GET) and fails beyond', async () => {
    const result = await service.call('redirect', { path: { n: 5 } });
    expect([result.status, (result.body as { method: string }).method]).toEqual([200, 'GET']);
    await expect(service.call('redirect', { path: { n: 6 } })).rejects.toThrow(
      `request to 127.0.0.1:${port} failed: more than 5 redirects`,
    );
  });

  it('does keep method, body and credentials through same-origin 307/308, and makes 303 a body-less GET', async () => {
    const config = { serverVariables: { port: String(port) } };
    const auth = await install(checker, document(port), config, { bearer: 'tok' });
    const go = (code: number) =>
      auth.echo('gotoPost', { path: { code }, query: { to: `${server.url}/landing` }, body: { a: 1 } });
    for (const code of [307, 308]) {
      const echo = await go(code);
      expect([code, echo.method, echo.path, echo.body, echo.headers['content-type']]).toEqual([
        code,
        'POST',
        '/landing',
        '{"a":1}',
        'application/json',
      ]);
      expect(echo.headers.authorization).toBe('Bearer tok');
    }
    const seeOther = await go(303);
    expect([seeOther.method, seeOther.path, seeOther.body, seeOther.headers['content-type']]).toEqual([
      'GET',
      '/landing',
      '',
      undefined,
    ]);
    expect(seeOther.headers.authorization).toBe('Bearer tok');
    await auth.adapter.teardown();
  });

  it('does send the extra default headers of the config on every request', async () => {
    const config = {
      serverVariables: { port: String(port) },
      headers: { 'X-Extra': 'one', 'X-Team': 'a b' },
    };
    const withHeaders = await install(checker, document(port), config);
    for (const toolId of ['echo', 'opLevel']) {
      const echo = await withHeaders.echo(toolId, {});
      expect([echo.headers['x-extra'], echo.headers['x-team']]).toEqual(['one', 'a b']);
    }
    await withHeaders.adapter.teardown();
  });

  it('does time out while the response body is still arriving', async () => {
    const stalled = await install(checker, document(port), {
      serverVariables: { port: String(port) },
      timeoutMs: 300,
    });
    await expect(stalled.call('stall', {})).rejects.toThrow(
      `request to 127.0.0.1:${port} timed out after 300 ms`,
    );
    await stalled.adapter.teardown();
  });

  it('does time out with the host in the message', async () => {
    const slow = await install(checker, document(port), {
      serverVariables: { port: String(port) },
      timeoutMs: 200,
    });
    await expect(slow.call('slow', {})).rejects.toThrow(
      `request to 127.0.0.1:${port} timed out after 200 ms`,
    );
    await slow.adapter.teardown();
  });

  it('does throw transport errors with the host and the cause, never the secrets', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const dead = await install(
      checker,
      {
        ...document(port),
        components: { securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'k' } } },
        security: [{ key: [] }],
      },
      { baseUrl: `http://127.0.0.1:${deadPort}` },
      { key: 'top-secret-value' },
    );
    const error = await dead.call('echo', {}).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(`request to 127.0.0.1:${deadPort} failed: ECONNREFUSED`);
    expect((error as Error).cause).toBeDefined();
    expect(JSON.stringify({ m: (error as Error).message, s: String((error as Error).stack) })).not.toContain(
      'top-secret-value',
    );
    await dead.adapter.teardown();
  });

  it('does refuse unknown services and tools, and forgets a dehydrated service', async () => {
    await expect(
      service.adapter.invoke({ serviceId: 'nope', toolId: 'echo', parameters: {} }),
    ).rejects.toThrow("service 'nope'");
    await expect(
      service.adapter.invoke({ serviceId: 'svc', toolId: 'nope', parameters: {} }),
    ).rejects.toThrow("no tool 'nope'");
    const other = await install(checker, document(port), { serverVariables: { port: String(port) } });
    await other.adapter.dehydrateService('svc');
    await other.adapter.dehydrateService('svc');
    await expect(other.call('echo', {})).rejects.toThrow('not active');
  });
});
