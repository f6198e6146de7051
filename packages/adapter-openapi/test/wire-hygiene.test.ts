import type { JSONSchema } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantiate } from '../src/index';
import { type EchoServer, startEchoServer } from './echo-server';
import { install } from './harness';
import { useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

const ok = { '200': { description: 'echo', content: { 'application/json': {} } } };
const header = (name: string) => ({ name, in: 'header', schema: { type: 'string' } });
const FRAMING = ['Content-Length', 'Transfer-Encoding', 'Host', 'Connection', 'Proxy-Authorization'];

const document = {
  openapi: '3.0.3',
  info: { title: 'hygiene', version: '1' },
  components: {
    securitySchemes: {
      headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
      cookieKey: { type: 'apiKey', in: 'cookie', name: 'sid' },
    },
  },
  paths: {
    '/framing': {
      post: {
        operationId: 'framing',
        description: 'Sends a note.',
        parameters: [...FRAMING.map(header), header('X-Ok'), header('Accept')],
        requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } },
        responses: ok,
      },
    },
    '/collide': {
      get: {
        operationId: 'collide',
        security: [{ headerKey: [], queryKey: [], cookieKey: [] }],
        parameters: [
          { name: 'api_key', in: 'query', schema: { type: 'string' } },
          { name: 'API_KEY', in: 'query', schema: { type: 'string' } },
          { name: 'SID', in: 'cookie', schema: { type: 'string' } },
          { name: 'theme', in: 'cookie', schema: { type: 'string' } },
          header('x-api-key'),
          header('Cookie'),
        ],
        responses: ok,
      },
    },
  },
};

const SECRETS = { headerKey: 'hk-secret', queryKey: 'qk-secret', cookieKey: 'ck-secret' };

const slotProperties = (schema: JSONSchema, slot: string) => {
  const slots = (schema.properties ?? {}) as Record<string, JSONSchema>;
  return Object.keys(slots[slot]?.properties ?? {});
};

let server: EchoServer;

beforeAll(async () => {
  server = await startEchoServer();
});

afterAll(async () => {
  await server.close();
});

describe('header hygiene', () => {
  it('does drop framing and hop-by-hop header parameters, saying so in the description', async () => {
    const { definition, adapter } = await install(checker, document, { baseUrl: server.url });
    const tool = definition.tools.find((t) => t.id === 'framing');
    expect(slotProperties(tool?.inputSchema ?? {}, 'headers')).toEqual(['X-Ok']);
    for (const name of FRAMING) expect(tool?.description).toContain(`header \`${name}\``);
    expect(tool?.description).toMatch(/^Sends a note\.\n\nParameters not settable through this tool: /);
    expect(tool?.description).toContain('framing or hop-by-hop header the HTTP client sets itself');
    // Accept is ignored by the OpenAPI rule; the note says so.
    expect(tool?.description).toContain(
      'header `Accept` (set by the adapter from the operation; OpenAPI ignores this header parameter)',
    );
    await adapter.teardown();
  });

  it('does refuse framing headers sent anyway, before any request', async () => {
    const { adapter } = await install(checker, document, { baseUrl: server.url });
    const before = server.count();
    for (const name of [...FRAMING, 'proxy-connection', 'TE', 'Upgrade', 'Expect', 'Keep-Alive']) {
      await expect(
        adapter.invoke({
          serviceId: 'svc',
          toolId: 'framing',
          parameters: { headers: { [name]: '0' }, body: 'hi' },
        }),
      ).rejects.toThrow(`header parameter '${name}' is not allowed`);
    }
    expect(server.count()).toBe(before);
    await adapter.teardown();
  });

  it('does not let a stored plan that still declares Content-Length smuggle a request onto the pooled socket', async () => {
    const adapter = instantiate();
    await adapter.setup({ config: {}, secrets: {}, logger: console as never });
    await adapter.hydrateService({
      id: 'old',
      adapterDomain: { servers: [{ url: server.url, variables: {} }], securitySchemes: {} },
      tools: {
        note: {
          // What an older version stored: the header parameter is part of the plan.
          adapterDomain: {
            method: 'post',
            path: '/note',
            parameters: [{ name: 'Content-Length', in: 'header', style: 'simple', explode: false }],
            body: { mediaType: 'text/plain', kind: 'text' },
            security: [],
          },
        },
      },
      config: {},
      secrets: {},
    });
    const smuggled = 'GET /_/smuggled HTTP/1.1\r\nHost: upstream\r\nX-Capture: ';
    const before = server.seen().length;
    await expect(
      adapter.invoke({
        serviceId: 'old',
        toolId: 'note',
        parameters: { headers: { 'Content-Length': '0' }, body: smuggled },
      }),
    ).rejects.toThrow("header parameter 'Content-Length' is not allowed");
    // The same body without the header travels as a body, on the same keep-alive pool.
    for (let i = 0; i < 2; i++) {
      const result = (await adapter.invoke({
        serviceId: 'old',
        toolId: 'note',
        parameters: { body: smuggled },
      })) as {
        body: { body: string; headers: Record<string, string> };
      };
      expect(result.body.body).toBe(smuggled);
      expect(result.body.headers['content-length']).toBe(String(Buffer.byteLength(smuggled)));
    }
    expect(server.seen().slice(before)).toEqual(['POST /note', 'POST /note']);
    await adapter.teardown();
  });

  it('does drop framing headers from config.headers; the client frames the body', async () => {
    const config = {
      baseUrl: server.url,
      headers: {
        'Content-Length': '0',
        'Transfer-Encoding': 'chunked',
        Connection: 'close',
        Host: 'evil.test',
        'Proxy-Authorization': 'x',
        'X-Team': 'blue',
      },
    };
    const service = await install(checker, document, config);
    const before = server.seen().length;
    const echo = await service.echo('framing', {
      headers: { 'X-Ok': 'yes' },
      body: 'GET /_/smuggled HTTP/1.1\r\n\r\n',
    });
    expect(echo.body).toBe('GET /_/smuggled HTTP/1.1\r\n\r\n');
    expect(echo.headers).toMatchObject({
      'content-length': String(Buffer.byteLength(echo.body)),
      host: new URL(server.url).host,
      'x-team': 'blue',
    });
    expect(echo.headers['transfer-encoding']).toBeUndefined();
    expect(echo.headers['proxy-authorization']).toBeUndefined();
    expect(server.seen().slice(before)).toEqual(['POST /framing']);
    await service.adapter.teardown();
  });

  it('does fail cleanly on header values with CR, LF or characters beyond U+00FF', async () => {
    const service = await install(checker, document, { baseUrl: server.url });
    const before = server.count();
    for (const value of ['a\r\nX-Injected: 1', 'a\nb', 'nul\u0000', 'check ✓']) {
      await expect(service.call('framing', { headers: { 'X-Ok': value } })).rejects.toThrow(
        "header 'x-ok' has a value that cannot be sent",
      );
    }
    expect(server.count()).toBe(before);
    // Latin-1 is what HTTP/1.1 can carry: it goes through.
    expect((await service.echo('framing', { headers: { 'X-Ok': 'caf\u00e9' } })).headers['x-ok']).toBe(
      'caf\u00e9',
    );
    await service.adapter.teardown();
  });
});

describe('credentials precedence', () => {
  it('does drop parameters named like a credential of the operation, with a note', async () => {
    const { definition, adapter } = await install(checker, document, { baseUrl: server.url });
    const tool = definition.tools.find((t) => t.id === 'collide');
    expect(slotProperties(tool?.inputSchema ?? {}, 'query')).toEqual(['API_KEY']);
    expect(slotProperties(tool?.inputSchema ?? {}, 'cookies')).toEqual(['theme']);
    expect(slotProperties(tool?.inputSchema ?? {}, 'headers')).toEqual([]);
    for (const name of ['query `api_key`', 'cookie `SID`', 'header `x-api-key`', 'header `Cookie`'])
      expect(tool?.description).toContain(name);
    expect(tool?.description).toContain("the credential of security scheme 'queryKey' goes there");
    await adapter.teardown();
  });

  it('does send each secret exactly once and never let a parameter override it', async () => {
    const service = await install(checker, document, { baseUrl: server.url }, SECRETS);
    const before = server.count();
    for (const parameters of [
      { query: { api_key: 'mine' } },
      { cookies: { sid: 'mine' } },
      { cookies: { SID: 'mine' } },
      { headers: { 'X-API-KEY': 'mine' } },
      { headers: { cookie: 'sid=mine' } },
    ]) {
      await expect(
        service.adapter.invoke({ serviceId: 'svc', toolId: 'collide', parameters }),
      ).rejects.toThrow(/parameter '[^']+' is not allowed: the credential of security scheme/);
    }
    expect(server.count()).toBe(before);
    const echo = await service.echo('collide', { query: { API_KEY: 'other' }, cookies: { theme: 'dark' } });
    expect(echo.rawQuery).toBe('API_KEY=other&api_key=qk-secret');
    expect(echo.cookies).toBe('theme=dark; sid=ck-secret');
    expect(echo.headers['x-api-key']).toBe('hk-secret');
    await service.adapter.teardown();
  });
});
