import { isCyrnelError } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from './echo-server';
import { install } from './harness';
import { useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

const ok = { '200': { description: 'echo', content: { 'application/json': {} } } };

// Like GitHub's description: no security schemes, so a token can only travel as a header.
const undeclared = {
  openapi: '3.0.3',
  info: { title: 'no schemes', version: '1' },
  paths: {
    '/user': {
      get: {
        operationId: 'me',
        parameters: [{ name: 'X-Token', in: 'header', schema: { type: 'string' } }],
        responses: ok,
      },
    },
    '/_/goto': {
      get: {
        operationId: 'goto',
        parameters: [{ name: 'to', in: 'query', schema: { type: 'string' } }],
        responses: ok,
      },
    },
  },
};

const declared = {
  openapi: '3.0.3',
  info: { title: 'bearer', version: '1' },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  security: [{ bearer: [] }],
  paths: { '/user': { get: { operationId: 'me', responses: ok } } },
};

let server: EchoServer;

beforeAll(async () => {
  server = await startEchoServer();
});

afterAll(async () => {
  await server.close();
});

describe('the headers secret', () => {
  it('does send secret headers, over config headers, and refuse a parameter named like one', async () => {
    const service = await install(
      checker,
      undeclared,
      { baseUrl: server.url, headers: { Authorization: 'Bearer from-config', 'X-Team': 'blue' } },
      { headers: { Authorization: 'Bearer ghp_secret', 'X-Token': 'secret-token' } },
    );
    const echo = await service.echo('me', {});
    expect([echo.headers.authorization, echo.headers['x-token'], echo.headers['x-team']]).toEqual([
      'Bearer ghp_secret',
      'secret-token',
      'blue',
    ]);
    expect(echo.headers.accept).toBe('application/json');
    // The document declares X-Token, but the operator's secret headers send it: the call is refused
    // (never sent with the caller's value in place of, or beside, the secret), in any letter case.
    const before = server.count();
    const error: unknown = await service
      .call('me', { headers: { 'X-Token': 'mine' } })
      .catch((e: unknown) => e);
    if (!isCyrnelError(error)) throw new Error('expected a CyrnelError');
    expect(error).toMatchObject({
      reason: 'invalid_parameters',
      status: 400,
      message:
        "header parameter 'X-Token' is not allowed: a credential of the service's secret headers goes there",
    });
    expect(error.message).not.toContain('secret-token');
    // Header names compare case-insensitively (a plan without the schema check, or an older one).
    for (const name of ['x-token', 'X-TOKEN', 'authorization']) {
      await expect(
        service.adapter.invoke({ serviceId: 'svc', toolId: 'me', parameters: { headers: { [name]: 'x' } } }),
      ).rejects.toMatchObject({ reason: 'invalid_parameters' });
    }
    expect(server.count()).toBe(before);
    await service.adapter.teardown();
  });

  it('does refuse a cookie parameter named like a cookie of a secret Cookie header', async () => {
    const document = {
      ...undeclared,
      paths: {
        '/user': {
          get: {
            operationId: 'me',
            parameters: [
              { name: 'prefs', in: 'cookie', style: 'form', explode: true, schema: { type: 'object' } },
            ],
            responses: ok,
          },
        },
      },
    };
    const service = await install(
      checker,
      document,
      { baseUrl: server.url },
      { headers: { Cookie: 'session=s3cr3t; lang=en' } },
    );
    const before = server.count();
    for (const key of ['session', 'SESSION', 'lang']) {
      await expect(service.call('me', { cookies: { prefs: { [key]: 'mine' } } })).rejects.toMatchObject({
        reason: 'invalid_parameters',
        message: expect.stringContaining("cookie parameter 'prefs' is not allowed"),
      });
    }
    expect(server.count()).toBe(before);
    const echo = await service.echo('me', { cookies: { prefs: { theme: 'dark' } } });
    expect(echo.cookies).toBe('session=s3cr3t; lang=en; theme=dark');
    await service.adapter.teardown();
  });

  it('does let the credential of a declared security scheme win over a secret header', async () => {
    const service = await install(
      checker,
      declared,
      { baseUrl: server.url },
      { bearer: 'scheme-token', headers: { authorization: 'Bearer header-token', 'X-Extra': 'x' } },
    );
    const echo = await service.echo('me', {});
    expect([echo.headers.authorization, echo.headers['x-extra']]).toEqual(['Bearer scheme-token', 'x']);
    await service.adapter.teardown();
    // Secret headers do not satisfy a declared scheme: the call is refused before any request.
    const missing = await install(
      checker,
      declared,
      { baseUrl: server.url },
      { headers: { authorization: 'x' } },
    );
    const before = server.count();
    await expect(missing.call('me', {})).rejects.toThrow(
      "missing credentials: this operation requires the secret 'bearer'",
    );
    expect(server.count()).toBe(before);
    await missing.adapter.teardown();
  });

  it('does drop framing and hop-by-hop names from secret headers', async () => {
    const service = await install(
      checker,
      undeclared,
      { baseUrl: server.url },
      {
        headers: {
          'Content-Length': '0',
          'Transfer-Encoding': 'chunked',
          Host: 'evil.test',
          Connection: 'close',
          'Proxy-Authorization': 'Basic eA==',
          'X-Token': 'kept',
        },
      },
    );
    const before = server.seen().length;
    const echo = await service.echo('me', {});
    expect(echo.headers).toMatchObject({ host: new URL(server.url).host, 'x-token': 'kept' });
    expect(echo.headers['transfer-encoding']).toBeUndefined();
    expect(echo.headers['proxy-authorization']).toBeUndefined();
    expect(server.seen().slice(before)).toEqual(['GET /user']);
    await service.adapter.teardown();
  });

  it('does fail on a secret header value that cannot be sent, without the value in the message', async () => {
    const service = await install(
      checker,
      undeclared,
      { baseUrl: server.url },
      { headers: { 'X-Token': 'a\r\nX-Injected: tok3n' } },
    );
    const before = server.count();
    const error = await service.call('me', {}).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("header 'x-token' has a value that cannot be sent");
    expect((error as Error).message).not.toContain('tok3n');
    expect(server.count()).toBe(before);
    await service.adapter.teardown();
  });

  it('does keep secret headers on same-origin redirects and drop them when a redirect leaves the origin', async () => {
    const service = await install(
      checker,
      undeclared,
      { baseUrl: server.url, headers: { 'X-Team': 'blue' } },
      { headers: { Authorization: 'Bearer ghp_secret', 'X-Token': 'secret-token' } },
    );
    const same = await service.echo('goto', { query: { to: `${server.url}/landing` } });
    expect([same.path, same.headers.authorization, same.headers['x-token']]).toEqual([
      '/landing',
      'Bearer ghp_secret',
      'secret-token',
    ]);
    const other = await service.echo('goto', {
      query: { to: `${server.url.replace('127.0.0.1', 'localhost')}/landing` },
    });
    expect([
      other.path,
      other.headers.authorization,
      other.headers['x-token'],
      other.headers['x-team'],
    ]).toEqual(['/landing', undefined, undefined, 'blue']);
    await service.adapter.teardown();
  });
});
