import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Echo, type EchoServer, startEchoServer } from './echo-server';
import { type Installed, install } from './harness';
import { useSchemaChecker } from './schema-check';

// Agent code chooses the keys of object parameters, and with allowReserved the `&` and `=` of query
// values. None of that may put a value of its own under a credential's name in front of (or in place
// of) the operator's secret: the upstream here records what it received.

const checker = useSchemaChecker();

const ok = { '200': { description: 'echo', content: { 'application/json': {} } } };
const freeForm = { type: 'object', additionalProperties: { type: 'string' } };

const document = {
  openapi: '3.0.3',
  info: { title: 'shadowing', version: '1' },
  components: {
    securitySchemes: {
      queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
      cookieKey: { type: 'apiKey', in: 'cookie', name: 'sid' },
    },
  },
  security: [{ queryKey: [], cookieKey: [] }],
  paths: {
    '/search': {
      get: {
        operationId: 'search',
        parameters: [
          { name: 'filter', in: 'query', style: 'form', explode: true, schema: freeForm },
          { name: 'page', in: 'query', style: 'deepObject', explode: true, schema: freeForm },
          { name: 'raw', in: 'query', allowReserved: true, schema: { type: 'string' } },
          {
            name: 'tags',
            in: 'query',
            style: 'pipeDelimited',
            explode: false,
            schema: { type: 'array', items: { type: 'string' } },
          },
          { name: 'words', in: 'query', style: 'spaceDelimited', explode: false, schema: freeForm },
          { name: 'form', in: 'query', style: 'form', explode: false, schema: freeForm },
          { name: 'prefs', in: 'cookie', style: 'form', explode: true, schema: freeForm },
          { name: 'flat', in: 'cookie', style: 'form', explode: false, schema: freeForm },
        ],
        responses: ok,
      },
    },
  },
};

const SECRETS = { queryKey: 'qk-SECRET', cookieKey: 'ck-SECRET' };
const ATTACKER = 'ATTACKER';

/** Every value the upstream received under `api_key`, read as a URLSearchParams receiver reads it. */
const queryKeys = (echo: Echo) => new URLSearchParams(echo.rawQuery).getAll('api_key');

/** Every value of a cookie named `sid`, read as a cookie parser splits the header (`; `, first `=`). */
function sidCookies(echo: Echo): string[] {
  return echo.cookies
    .split(/;\s*/)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const)
    .filter(([name]) => decodeURIComponent(name).toLowerCase() === 'sid')
    .map(([, value]) => value);
}

let server: EchoServer;
let service: Installed;

beforeAll(async () => {
  server = await startEchoServer();
  service = await install(checker, document, { baseUrl: server.url }, SECRETS);
});

afterAll(async () => {
  await service.adapter.teardown();
  await server.close();
});

describe('no parameter reaches the upstream under a credential name', () => {
  it.each([
    [
      'an exploded form object key (query)',
      { query: { filter: { api_key: ATTACKER, other: '1' } } },
      'filter',
    ],
    ['an exploded key in another case (query)', { query: { filter: { API_KEY: ATTACKER } } }, 'filter'],
    ['an exploded key read as api_key[] (query)', { query: { filter: { 'api_key[]': ATTACKER } } }, 'filter'],
    ['an & kept literal by allowReserved (query)', { query: { raw: `x&api_key=${ATTACKER}` } }, 'raw'],
    ['an exploded object key (cookie)', { cookies: { prefs: { sid: ATTACKER } } }, 'prefs'],
    ['an exploded key in another case (cookie)', { cookies: { prefs: { SID: ATTACKER } } }, 'prefs'],
  ])('does refuse %s before any request, naming the parameter', async (_, parameters, name) => {
    const before = server.count();
    const error: unknown = await service.call('search', parameters).catch((e: unknown) => e);
    if (!(error instanceof Error)) throw new Error('expected the call to be refused');
    expect(error).toMatchObject({
      reason: 'invalid_parameters',
      status: 400,
      message: expect.stringMatching(new RegExp(`^(query|cookie) parameter '${name}' is not allowed: `)),
    });
    expect(error.message).not.toMatch(/SECRET/);
    expect(server.count()).toBe(before);
  });

  it('does encode cookie names and values: a key or value cannot start a cookie of its own', async () => {
    const echo = await service.echo('search', {
      cookies: { prefs: { 'a=1; sid': ATTACKER, theme: `dark; sid=${ATTACKER}` } },
    });
    expect(echo.cookies).toBe('a%3D1%3B%20sid=ATTACKER; theme=dark%3B%20sid%3DATTACKER; sid=ck-SECRET');
    expect(sidCookies(echo)).toEqual(['ck-SECRET']);
    expect(queryKeys(echo)).toEqual(['qk-SECRET']);
  });

  it('does send legitimate parameters of every style exactly as before, and each secret once', async () => {
    const echo = await service.echo('search', {
      query: {
        filter: { q: 'a b', other: '1' },
        page: { api_key: 'x', size: '10' },
        raw: 'a/b?c=[d]&e=f',
        tags: ['api_key', 'b'],
        words: { api_key: 'x' },
        form: { api_key: 'x', b: 'y' },
      },
      cookies: { prefs: { theme: 'dark', lang: 'en gb' }, flat: { sid: 'x' } },
    });
    expect(echo.rawQuery).toBe(
      [
        'q=a%20b&other=1',
        'page[api_key]=x&page[size]=10',
        'raw=a/b?c=[d]&e=f',
        'tags=api_key|b',
        'words=api_key%20x',
        'form=api_key,x,b,y',
        'api_key=qk-SECRET',
      ].join('&'),
    );
    expect(echo.cookies).toBe('theme=dark; lang=en%20gb; flat=sid,x; sid=ck-SECRET');
    expect(queryKeys(echo)).toEqual(['qk-SECRET']);
    expect(sidCookies(echo)).toEqual(['ck-SECRET']);
  });
});
