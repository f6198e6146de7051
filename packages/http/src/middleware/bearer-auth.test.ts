import { createKeyRing, createMemoryKeyStorage } from '@cyrnel/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../app-env';
import { errorResponse } from '../error-response';
import { bearerAuth } from './bearer-auth';
import { roleGuard } from './role-guard';

const SILENT = { info() {}, warn() {}, error() {} };

/** bearerAuth and roleGuard in front of routes that echo the caller. */
function guardedApp(options: Parameters<typeof bearerAuth>[0]) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set('requestId', 'test');
    await next();
  });
  app.use(bearerAuth(options));
  app.use(roleGuard());
  app.all('*', (c) => c.json(c.get('caller')));
  app.onError((error, c) => errorResponse(error, c, SILENT));
  const call = async (method: string, path: string, key?: string) => {
    const response = await app.request(`http://127.0.0.1${path}`, {
      method,
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
    };
  };
  return call;
}

describe('bearerAuth and roleGuard', () => {
  it('leaves a server without any key open (every request an admin) until a key is stored', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const call = guardedApp({ keys });
    expect(await call('POST', '/services')).toEqual({
      status: 200,
      body: { keyId: null, principalId: null, role: 'admin' },
    });
    const { key, id } = await keys.create({ name: 'first admin', role: 'admin' });
    expect((await call('GET', '/services')).status).toBe(401);
    expect(await call('GET', '/services', key)).toEqual({
      status: 200,
      body: { keyId: id, principalId: expect.any(String), role: 'admin' },
    });
    expect((await call('GET', '/health')).status).toBe(200);
    await keys.delete(id);
    // Deleting the last key does not open the server again.
    expect((await call('GET', '/services')).status).toBe(401);
    expect((await call('GET', '/services', key)).status).toBe(401);
  });

  it('takes the apiKey as an admin key beside stored keys', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const call = guardedApp({ apiKey: 'bootstrap', keys });
    expect((await call('GET', '/keys')).status).toBe(401);
    expect((await call('GET', '/keys', 'bootstrapx')).status).toBe(401);
    expect(await call('GET', '/keys', 'bootstrap')).toEqual({
      status: 200,
      body: { keyId: null, principalId: null, role: 'admin', bootstrap: true },
    });
    const agent = await keys.create({ name: 'agent', role: 'agent' });
    expect(await call('GET', '/processes', agent.key)).toEqual({
      status: 200,
      body: { keyId: agent.id, principalId: agent.principalId, role: 'agent' },
    });
  });

  it('lets an agent key use only the agent routes, naming the role and the route otherwise', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const { key } = await keys.create({ name: 'agent', role: 'agent' });
    const call = guardedApp({ keys });
    for (const [method, path] of [
      ['POST', '/processes'],
      ['GET', '/processes/'],
      ['GET', '/processes/12'],
      ['HEAD', '/processes/12/stdout'],
      ['DELETE', '/processes/12'],
      ['GET', '/processes/12/events'],
      ['POST', '/processes/12/signals/run'],
      ['POST', '/processes/12/signals/kill'],
      ['GET', '/tools'],
      ['GET', '/tools/shop/getUser'],
      ['GET', '/tools/shop/getUser/docs'],
      ['GET', '/environment/types'],
    ] as const) {
      expect({ route: `${method} ${path}`, status: (await call(method, path, key)).status }).toEqual({
        route: `${method} ${path}`,
        status: 200,
      });
    }
    for (const [method, path] of [
      ['POST', '/services'],
      ['PATCH', '/services/shop'],
      ['GET', '/services'],
      ['GET', '/services/shop/secrets'],
      ['GET', '/modules'],
      ['POST', '/tools/shop/getUser/enabled'],
      ['GET', '/keys'],
      ['POST', '/keys'],
      ['PATCH', '/processes/12'],
      ['GET', '/processes/12/code/extra'],
      ['GET', '/tools/shop'],
      ['GET', '/nowhere'],
    ] as const) {
      const response = await call(method, path, key);
      expect({ route: `${method} ${path}`, status: response.status, code: response.body.code }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        code: 'forbidden',
      });
      expect(response.body.error).toContain(`the agent role may not use ${method} ${path}`);
    }
  });

  it('lets an approver key use the agent routes and the approvals, and nothing of an admin', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const approver = await keys.create({ name: 'reviewer', role: 'approver' });
    const agent = await keys.create({ name: 'agent', role: 'agent' });
    const admin = await keys.create({ name: 'admin', role: 'admin' });
    const call = guardedApp({ keys });
    const approvals = [
      ['GET', '/approvals'],
      ['GET', '/approvals/a1'],
      ['POST', '/approvals/a1'],
      ['POST', '/approvals/plans/p1'],
    ] as const;
    for (const [method, path] of [...approvals, ['POST', '/processes'], ['GET', '/tools']] as const) {
      for (const key of [approver, admin]) {
        const { status, body } = await call(method, path, key.key);
        expect({ route: `${method} ${path}`, status, body }).toEqual({
          route: `${method} ${path}`,
          status: 200,
          body: { keyId: key.id, principalId: key.principalId, role: key.role },
        });
      }
    }
    for (const [method, path] of approvals) {
      const response = await call(method, path, agent.key);
      expect({ route: `${method} ${path}`, status: response.status, code: response.body.code }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        code: 'forbidden',
      });
      expect(response.body.error).toBe(
        `the agent role may not use ${method} ${path} (an approver or admin key may)`,
      );
    }
    for (const [method, path] of [
      ['GET', '/services/shop/policy'],
      ['PUT', '/services/shop/policy'],
      ['POST', '/keys'],
      ['POST', '/tools/shop/getUser/enabled'],
      ['GET', '/approvals/a1/extra'],
    ] as const) {
      const response = await call(method, path, approver.key);
      expect({ route: `${method} ${path}`, status: response.status }).toEqual({
        route: `${method} ${path}`,
        status: 403,
      });
      expect(response.body.error).toBe(`the approver role may not use ${method} ${path} (an admin key may)`);
    }
  });
});

describe('bearerAuth with OAuth tokens', () => {
  const CHALLENGE = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';
  const app = (keys = createKeyRing({ storage: createMemoryKeyStorage() })) => {
    const hono = new Hono<AppEnv>();
    hono.use(
      bearerAuth({
        keys,
        oauth: {
          paths: ['/mcp'],
          challenge: CHALLENGE,
          verify: async (token) =>
            token === 'good-token'
              ? { keyId: 'principal:p1', principalId: 'p1', role: 'agent', oauthSubject: 'https://as#a' }
              : undefined,
        },
      }),
    );
    hono.all('*', (c) => c.json(c.get('caller')));
    hono.onError((error, c) => errorResponse(error, c, SILENT));
    return (path: string, token?: string) =>
      hono.request(`http://127.0.0.1${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  };

  it('accepts a verified token on its paths only, as the caller the verifier answers', async () => {
    const call = app();
    const signedIn = await call('/mcp', 'good-token');
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({
      keyId: 'principal:p1',
      principalId: 'p1',
      role: 'agent',
      oauthSubject: 'https://as#a',
    });
    const elsewhere = await call('/processes', 'good-token');
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers 401 with the resource metadata challenge on its paths, even on a server without keys', async () => {
    const call = app();
    for (const token of [undefined, 'bad-token']) {
      const refused = await call('/mcp', token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(CHALLENGE);
      expect(await refused.json()).toMatchObject({ reason: 'unauthorized' });
    }
  });

  it('keeps stored keys working on the same paths', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const created = await keys.create({ name: 'k', role: 'agent' });
    const answer = await app(keys)('/mcp', created.key);
    expect(await answer.json()).toEqual({
      keyId: created.id,
      principalId: created.principalId,
      role: 'agent',
    });
  });
});
