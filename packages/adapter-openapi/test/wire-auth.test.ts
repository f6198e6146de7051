import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from './echo-server';
import { install } from './harness';
import { useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

const ok = { '200': { description: 'echo', content: { 'application/json': {} } } };
const op = (operationId: string, security?: unknown) => ({
  get: { operationId, ...(security ? { security } : {}), responses: ok },
});

const document = {
  openapi: '3.0.3',
  info: { title: 'auth', version: '1' },
  components: {
    securitySchemes: {
      headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
      cookieKey: { type: 'apiKey', in: 'cookie', name: 'sid' },
      basic: { type: 'http', scheme: 'basic' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      oauth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://x.invalid/token', scopes: {} } },
      },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://x.invalid/.well-known/openid-configuration' },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    '/header': op('headerKey', [{ headerKey: [] }]),
    '/query': {
      get: {
        ...op('queryKey', [{ queryKey: [] }]).get,
        parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
      },
    },
    '/cookie': {
      get: {
        ...op('cookieKey', [{ cookieKey: [] }]).get,
        parameters: [{ name: 'c', in: 'cookie', schema: { type: 'string' } }],
      },
    },
    '/basic': op('basic', [{ basic: [] }]),
    '/default': op('documentDefault'),
    '/oauth': op('oauth', [{ oauth: ['read'] }]),
    '/oidc': op('oidc', [{ oidc: [] }]),
    '/both': op('both', [{ headerKey: [], queryKey: [] }]),
    '/alternatives': op('alternatives', [{ basic: [] }, { headerKey: [] }]),
    '/optional': op('optional', [{}, { headerKey: [] }]),
    '/none': op('none', []),
    '/_/goto': {
      get: {
        ...op('goto', [{ headerKey: [], bearer: [], cookieKey: [] }]).get,
        parameters: [{ name: 'to', in: 'query', schema: { type: 'string' } }],
      },
    },
  },
};

const SECRETS = {
  headerKey: 'hk-secret',
  queryKey: 'q k&secret',
  cookieKey: 'ck;secret',
  basic: { username: 'aladdin', password: 'open sesame' },
  bearer: 'bearer-secret',
  oauth: 'oauth-secret',
  oidc: 'oidc-secret',
};

let server: EchoServer;

beforeAll(async () => {
  server = await startEchoServer();
});

afterAll(async () => {
  await server.close();
});

describe('authentication on the wire', () => {
  it('does describe one secret per scheme; http basic as {username, password}', async () => {
    const { definition, adapter } = await install(checker, document, { baseUrl: server.url });
    const props = definition.secretsSchema.properties as Record<
      string,
      { type: string; required?: string[] }
    >;
    expect(Object.keys(props)).toEqual([...Object.keys(SECRETS), 'headers']);
    expect(props.basic).toMatchObject({ type: 'object', required: ['username', 'password'] });
    expect(Object.values(props).filter((p) => p.type === 'string')).toHaveLength(6);
    await adapter.teardown();
  });

  it('does apply every kind of scheme', async () => {
    const service = await install(checker, document, { baseUrl: server.url }, SECRETS);
    expect((await service.echo('headerKey', {})).headers['x-api-key']).toBe('hk-secret');
    expect((await service.echo('queryKey', { query: { q: '1' } })).rawQuery).toBe(
      'q=1&api_key=q%20k%26secret',
    );
    expect((await service.echo('cookieKey', { cookies: { c: '1' } })).cookies).toBe('c=1; sid=ck%3Bsecret');
    expect((await service.echo('basic', {})).headers.authorization).toBe(
      `Basic ${Buffer.from('aladdin:open sesame').toString('base64')}`,
    );
    expect((await service.echo('documentDefault', {})).headers.authorization).toBe('Bearer bearer-secret');
    expect((await service.echo('oauth', {})).headers.authorization).toBe('Bearer oauth-secret');
    expect((await service.echo('oidc', {})).headers.authorization).toBe('Bearer oidc-secret');
    const both = await service.echo('both', {});
    expect([both.headers['x-api-key'], both.rawQuery]).toEqual(['hk-secret', 'api_key=q%20k%26secret']);
    expect((await service.echo('none', {})).headers.authorization).toBeUndefined();
    await service.adapter.teardown();
  });

  it('does send a cookie key as is when RFC 6265 allows its characters (base64 keys keep = / +)', async () => {
    const key = 'dGhpcyBpcy+/a2V5==';
    const service = await install(checker, document, { baseUrl: server.url }, { cookieKey: key });
    expect((await service.echo('cookieKey', {})).cookies).toBe(`sid=${key}`);
    await service.adapter.teardown();
    const odd = await install(checker, document, { baseUrl: server.url }, { cookieKey: 'a b"c,d;e\\fé%' });
    expect((await odd.echo('cookieKey', {})).cookies).toBe('sid=a%20b%22c%2Cd%3Be%5Cf%C3%A9%');
    await odd.adapter.teardown();
  });

  it('does pick the first satisfiable alternative', async () => {
    const service = await install(checker, document, { baseUrl: server.url }, { headerKey: 'only-key' });
    const alt = await service.echo('alternatives', {});
    expect([alt.headers.authorization, alt.headers['x-api-key']]).toEqual([undefined, 'only-key']);
    // An empty requirement ({}) comes first, so the anonymous alternative is taken.
    expect((await service.echo('optional', {})).headers['x-api-key']).toBeUndefined();
    await service.adapter.teardown();
  });

  it('does throw a clear error before any request when no alternative has its secrets', async () => {
    const service = await install(checker, document, { baseUrl: server.url }, { queryKey: 'partial-secret' });
    const before = server.count();
    await expect(service.call('both', {})).rejects.toThrow(
      "missing credentials: this operation requires the secret 'headerKey' + 'queryKey'",
    );
    await expect(service.call('alternatives', {})).rejects.toThrow("'basic' or 'headerKey'");
    await expect(service.call('documentDefault', {})).rejects.not.toThrow(/partial-secret/);
    expect(server.count()).toBe(before);
    await service.adapter.teardown();
  });

  it('does keep credentials on same-origin redirects and drop them when a redirect leaves the origin', async () => {
    const service = await install(checker, document, { baseUrl: server.url }, SECRETS);
    const same = await service.echo('goto', { query: { to: `${server.url}/landing` } });
    expect([same.path, same.headers['x-api-key'], same.headers.authorization, same.cookies]).toEqual([
      '/landing',
      'hk-secret',
      'Bearer bearer-secret',
      'sid=ck%3Bsecret',
    ]);
    const other = await service.echo('goto', {
      query: { to: `${server.url.replace('127.0.0.1', 'localhost')}/landing` },
    });
    expect([other.path, other.headers['x-api-key'], other.headers.authorization, other.cookies]).toEqual([
      '/landing',
      undefined,
      undefined,
      '',
    ]);
    await service.adapter.teardown();
  });
});
