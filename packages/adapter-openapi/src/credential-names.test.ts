import { isCyrnelError } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { buildRequest } from './build-request';
import { cookieNamesOf, credentialNames } from './credential-names';
import type { OperationPlan, ParameterPlan, SecuritySchemePlan, ServicePlan } from './operation-model';

const SCHEMES: Record<string, SecuritySchemePlan> = {
  queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
  spacedKey: { type: 'apiKey', in: 'query', name: 'api key' },
  bracketKey: { type: 'apiKey', in: 'query', name: 'page[key]' },
  cookieKey: { type: 'apiKey', in: 'cookie', name: 'sid' },
  headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
  bearer: { type: 'http', scheme: 'bearer' },
  unused: { type: 'apiKey', in: 'query', name: 'other_key' },
};
const SECRETS = {
  queryKey: 'SECRET-Q',
  spacedKey: 'SECRET-S',
  bracketKey: 'SECRET-B',
  cookieKey: 'SECRET-C',
  headerKey: 'SECRET-H',
  bearer: 'SECRET-T',
};
const SERVICE: ServicePlan = {
  servers: [{ url: 'http://upstream.test', variables: {} }],
  defaultBaseUrl: 'http://upstream.test',
  securitySchemes: SCHEMES,
};
const SLOT = { query: 'query', cookie: 'cookies', header: 'headers', path: 'path' } as const;

const param = (p: Partial<ParameterPlan>): ParameterPlan => ({
  name: 'filter',
  in: 'query',
  style: 'form',
  explode: true,
  ...p,
});

/** Build the request for one parameter set to `value`, with every credential of SCHEMES applied. */
function build(plan: ParameterPlan, value: unknown, secrets: Record<string, unknown> = SECRETS) {
  const operation: OperationPlan = {
    method: 'get',
    path: '/items',
    parameters: [plan],
    security: [['queryKey', 'spacedKey', 'bracketKey', 'cookieKey', 'headerKey', 'bearer']],
  };
  return buildRequest({
    service: SERVICE,
    operation,
    config: {},
    secrets,
    parameters: { [SLOT[plan.in]]: { [plan.name]: value } },
  });
}

/** The parameter's own part of what is sent: the query before the credentials, or the cookies before them. */
function sent(plan: ParameterPlan, value: unknown): string {
  const request = build(plan, value);
  if (plan.in === 'cookie') return (request.headers.cookie ?? '').split('; sid=')[0] ?? '';
  if (plan.in === 'header') return request.headers[plan.name.toLowerCase()] ?? '';
  return request.url.search.slice(1).split('&api_key=')[0] ?? '';
}

function refusal(plan: ParameterPlan, value: unknown, secrets?: Record<string, unknown>) {
  try {
    build(plan, value, secrets);
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${plan.in} ${plan.style} ${JSON.stringify(value)} to be refused`);
}

function expectRefused(plan: ParameterPlan, value: unknown, secrets?: Record<string, unknown>): void {
  const error = refusal(plan, value, secrets);
  if (!isCyrnelError(error)) throw error;
  expect(error.reason).toBe('invalid_parameters');
  expect(error.status).toBe(400);
  expect(error.message).toMatch(
    new RegExp(`^${plan.in} parameter '${plan.name.replace(/[[\]]/g, '\\$&')}' is not allowed: `),
  );
  expect(error.details).toEqual([{ path: `/${SLOT[plan.in]}/${plan.name}`, message: error.message }]);
  for (const secret of Object.values(SECRETS)) expect(error.message).not.toContain(secret);
}

describe('query names a credential occupies, in every style', () => {
  const exploded = param({ style: 'form', explode: true });

  it.each([
    ['an exploded form object key', exploded, { api_key: 'ATTACKER', other: '1' }],
    ['an exploded key in another letter case', exploded, { API_Key: 'ATTACKER' }],
    ['an exploded key read as api_key[x] by PHP, Rack and qs', exploded, { 'api_key[x]': 'ATTACKER' }],
    ['an exploded key of a name with a space', exploded, { 'api key': 'ATTACKER' }],
    [
      'a deepObject key making the credential name',
      param({ name: 'page', style: 'deepObject' }),
      { key: 'A' },
    ],
    [
      'an & kept literal by allowReserved',
      param({ explode: false, allowReserved: true }),
      'x&api_key=ATTACKER',
    ],
    ['a ; kept literal by allowReserved', param({ explode: false, allowReserved: true }), 'x;api_key=A'],
    ['a + read as a space', param({ explode: false, allowReserved: true }), 'x&api+key=ATTACKER'],
    [
      'an allowReserved pipeDelimited array',
      param({ style: 'pipeDelimited', explode: false, allowReserved: true }),
      ['a', '&api_key=A'],
    ],
    ['an exploded allowReserved array', param({ allowReserved: true }), ['a', 'b&api_key=A']],
    ['an exploded allowReserved object value', param({ allowReserved: true }), { a: 'b&api_key=A' }],
    [
      'a JSON content value kept literal by allowReserved',
      param({ contentType: 'application/json', allowReserved: true }),
      { a: '&api_key=x' },
    ],
    [
      'a declared parameter of the credential name (a plan stored before screening)',
      param({ name: 'api_key' }),
      'ATTACKER',
    ],
  ])('does refuse %s', (_, plan, value) => {
    expectRefused(plan, value);
  });

  it('does serialise names that are not a credential exactly as before, the credential sent once after them', () => {
    expect(sent(exploded, { R: 100, G: 200 })).toBe('R=100&G=200');
    expect(sent(param({ explode: false }), { api_key: 'x', b: 'y' })).toBe('filter=api_key,x,b,y');
    expect(sent(param({ style: 'pipeDelimited', explode: false }), { api_key: 'x' })).toBe(
      'filter=api_key|x',
    );
    expect(sent(param({ style: 'spaceDelimited', explode: false }), ['api_key', 'x'])).toBe(
      'filter=api_key%20x',
    );
    expect(sent(param({ style: 'deepObject' }), { api_key: 'x', a: { b: 1 } })).toBe(
      'filter[api_key]=x&filter[a][b]=1',
    );
    expect(sent(param({ name: 'page', style: 'deepObject' }), { size: 10 })).toBe('page[size]=10');
    expect(sent(param({ explode: false, allowReserved: true }), 'a/b?c=[d]&e=f')).toBe(
      'filter=a/b?c=[d]&e=f',
    );
    // Percent-encoded once, the key decodes to `api%5Fkey`, not the credential's name.
    expect(sent(exploded, { 'api%5Fkey': 'x' })).toBe('api%255Fkey=x');
    // `#` would end the query (and cut the credential off): encoded even with allowReserved.
    expect(sent(param({ explode: false, allowReserved: true }), 'a#b')).toBe('filter=a%23b');
    const request = build(exploded, { q: '1' });
    expect(new URLSearchParams(request.url.search).getAll('api_key')).toEqual(['SECRET-Q']);
  });

  it('does compare a name the document declared exactly: its own name in another case stays settable', () => {
    expect(sent(param({ name: 'API_KEY', explode: false }), 'mine')).toBe('API_KEY=mine');
    expect(sent(param({ name: 'API_KEY' }), ['a', 'b'])).toBe('API_KEY=a&API_KEY=b');
  });

  it('does not reserve names of schemes the operation does not use', () => {
    expect(sent(exploded, { other_key: 'x' })).toBe('other_key=x');
  });
});

describe('cookie names a credential occupies', () => {
  const prefs = param({ name: 'prefs', in: 'cookie', style: 'form', explode: true });

  it.each([
    ['an exploded object key', prefs, { sid: 'ATTACKER' }],
    ['an exploded key in another letter case', prefs, { SID: 'ATTACKER' }],
    ['an exploded key read as sid[x]', prefs, { 'sid[x]': 'ATTACKER' }],
    ['an exploded key percent-encoded by the caller', prefs, { '%73id': 'ATTACKER' }],
    ['a declared parameter of the credential name', param({ name: 'Sid', in: 'cookie' }), 'ATTACKER'],
  ])('does refuse %s', (_, plan, value) => {
    expectRefused(plan, value);
  });

  it('does encode names and values so neither can end a pair or start another cookie', () => {
    const request = build(prefs, { 'a=1; sid': 'x', theme: 'y; sid=ATTACKER', 'q,r': 'z' });
    expect(request.headers.cookie).toBe(
      'a%3D1%3B%20sid=x; theme=y%3B%20sid%3DATTACKER; q%2Cr=z; sid=SECRET-C',
    );
    expect(cookieNamesOf(request.headers.cookie ?? '')).toEqual(['a%3D1%3B%20sid', 'theme', 'q%2Cr', 'sid']);
    // `(`, `)`, brackets and non-ASCII are not token characters either; `%` is.
    expect(sent(prefs, { '(a)': 1, '%41': 2, 'b[c]': 3, é: 4 })).toBe(
      '%28a%29=1; %41=2; b%5Bc%5D=3; %C3%A9=4',
    );
  });

  it('does serialise other cookies exactly as before', () => {
    expect(sent(prefs, { R: 100, G: 200 })).toBe('R=100; G=200');
    expect(sent(param({ name: 'prefs', in: 'cookie', explode: false }), { sid: 'x' })).toBe('prefs=sid,x');
    expect(sent(prefs, ['a b', 'c'])).toBe('prefs=a%20b; prefs=c');
    expect(sent(param({ name: 'c', in: 'cookie', contentType: 'application/json' }), [1])).toBe('c=%5B1%5D');
  });
});

describe('header names a credential occupies', () => {
  it.each([
    ['an apiKey header', 'x-api-key'],
    ['Authorization of an http scheme', 'Authorization'],
    ['Cookie, in front of a cookie key', 'Cookie'],
  ])('does refuse %s, in any letter case', (_, name) => {
    expectRefused(param({ name, in: 'header', style: 'simple', explode: false }), 'ATTACKER');
    expectRefused(param({ name: name.toUpperCase(), in: 'header', style: 'simple', explode: false }), 'A');
  });

  it('does refuse the names of secret headers, and the cookies of a secret Cookie header', () => {
    const secrets = { ...SECRETS, headers: { 'X-Token': 'SECRET-X', cookie: 'session=SECRET-S2; lang=en' } };
    expectRefused(param({ name: 'x-token', in: 'header', style: 'simple', explode: false }), 'A', secrets);
    const prefs = param({ name: 'prefs', in: 'cookie', style: 'form', explode: true });
    expectRefused(prefs, { Session: 'A' }, secrets);
    expectRefused(prefs, { lang: 'A' }, secrets);
    expect(build(prefs, { theme: 'dark' }, secrets).headers.cookie).toBe(
      'session=SECRET-S2; lang=en; theme=dark; sid=SECRET-C',
    );
  });

  it('does keep keys of an object header value inside the value', () => {
    const plan = param({ name: 'X-Meta', in: 'header', style: 'simple', explode: true });
    expect(sent(plan, { 'X-Api-Key': 'a', b: 'c' })).toBe('X-Api-Key=a,b=c');
    expect(build(plan, { 'X-Api-Key': 'a' }).headers['x-api-key']).toBe('SECRET-H');
  });
});

describe('form and multipart body fields named like a query credential', () => {
  const body = (kind: 'form' | 'multipart' | 'json', value: unknown) =>
    buildRequest({
      service: SERVICE,
      operation: {
        method: 'post',
        path: '/items',
        parameters: [],
        body: {
          kind,
          mediaType:
            kind === 'json'
              ? 'application/json'
              : `${kind === 'form' ? 'application/x-www-form-urlencoded' : 'multipart/form-data'}`,
          encoding: { meta: { style: 'deepObject', explode: true } },
        },
        security: [['queryKey', 'cookieKey']],
      },
      config: {},
      secrets: SECRETS,
      parameters: { body: value },
    });

  it.each([
    ['a form field', 'form', { api_key: 'ATTACKER' }, 'api_key'],
    ['a form field in another case', 'form', { Api_Key: 'ATTACKER' }, 'Api_Key'],
    ['a form field read as api_key[]', 'form', { 'api_key[]': 'ATTACKER' }, 'api_key[]'],
    ['an exploded object inside a form field', 'form', { extra: { api_key: 'ATTACKER' } }, 'extra'],
    ['a multipart part', 'multipart', { api_key: 'ATTACKER' }, 'api_key'],
  ] as const)('does refuse %s (frameworks merge them into the query parameters)', (_, kind, value, field) => {
    let error: unknown;
    try {
      body(kind, value);
    } catch (caught) {
      error = caught;
    }
    if (!isCyrnelError(error)) throw new Error(`expected ${JSON.stringify(value)} to be refused`);
    expect(error.reason).toBe('invalid_parameters');
    expect(error.message).toMatch(
      new RegExp(`^body field '${field.replace(/[[\]]/g, '\\$&')}' is not allowed: `),
    );
    expect(error.message).not.toContain('SECRET');
  });

  it('does encode other fields as before, and leaves JSON bodies alone', () => {
    expect(body('form', { q: 'a b', meta: { api_key: 'x' } }).body?.toString()).toBe(
      'q=a%20b&meta[api_key]=x',
    );
    expect(body('multipart', { note: 'api_key=x' }).body?.toString()).toContain('name="note"');
    expect(body('json', { api_key: 'x' }).body?.toString()).toBe('{"api_key":"x"}');
  });
});

describe('credentialNames', () => {
  it('does name what owns each name, never a secret', () => {
    const names = credentialNames([['queryKey'], ['cookieKey', 'bearer']], SCHEMES, {
      'x-token': 'SECRET',
      cookie: 'a=1, b=2',
    });
    expect(Object.fromEntries(names.query)).toEqual({
      api_key: "the credential of security scheme 'queryKey'",
    });
    expect([...names.header.keys()].sort()).toEqual(['authorization', 'cookie', 'x-token']);
    expect(names.header.get('x-token')).toBe("a credential of the service's secret headers");
    expect([...names.cookie.keys()]).toEqual(['sid', 'a', 'b']);
  });
});
