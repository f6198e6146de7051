import { type CyrnelHost, createKeyRing, createMemoryKeyStorage } from '@cyrnel/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from './app-env';
import { createApp } from './create-app';
import type { RouteGroup } from './route-groups';

// The groups answer without the host: one that fails every call shows it was not needed.
const noHost = new Proxy({} as CyrnelHost, {
  get: () => {
    throw new Error('the host was not needed');
  },
});

/** A group echoing who asked and the body it read. */
function echoGroup(): Hono<AppEnv> {
  const group = new Hono<AppEnv>();
  group.get('/', (c) => c.json({ at: 'root', caller: c.get('caller') }));
  group.post('/rpc', async (c) => c.json({ caller: c.get('caller'), body: await c.req.json() }));
  return group;
}

async function appWithGroups(routes: readonly RouteGroup[]) {
  const keys = createKeyRing({ storage: createMemoryKeyStorage() });
  const admin = await keys.create({ name: 'admin', role: 'admin' });
  const agent = await keys.create({ name: 'agent', role: 'agent' });
  const app = createApp(noHost, { keys, maxBodyBytes: 64, routes });
  const call = async (method: string, path: string, key?: string, body?: unknown) => {
    const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await app.request(`http://127.0.0.1${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { call, adminKey: admin.key, agentKey: agent.key, adminId: admin.id, agentId: agent.id };
}

describe('createApp route groups', () => {
  it('mounts an admin group (the default) behind the key and role checks', async () => {
    const { call, adminKey, agentKey, adminId } = await appWithGroups([{ path: '/mcp', app: echoGroup() }]);
    expect(await call('GET', '/mcp')).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(await call('GET', '/mcp', agentKey)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await call('GET', '/mcp', adminKey)).toEqual({
      status: 200,
      body: { at: 'root', caller: { keyId: adminId, principalId: expect.any(String), role: 'admin' } },
    });
    expect(await call('POST', '/mcp/rpc', adminKey, { id: 1 })).toMatchObject({
      status: 200,
      body: { body: { id: 1 } },
    });
  });

  it('lets agent keys use a group declared for agents, every method and path below it', async () => {
    const { call, agentKey, agentId } = await appWithGroups([
      { path: '/mcp', app: echoGroup(), auth: 'agent' },
    ]);
    expect(await call('POST', '/mcp/rpc')).toMatchObject({ status: 401 });
    expect(await call('POST', '/mcp/rpc', agentKey, { id: 2 })).toEqual({
      status: 200,
      body: { caller: { keyId: agentId, principalId: expect.any(String), role: 'agent' }, body: { id: 2 } },
    });
    // Declaring the group opens nothing else to agents.
    expect(await call('GET', '/services', agentKey)).toMatchObject({ status: 403 });
    expect(await call('GET', '/mcpx', agentKey)).toMatchObject({ status: 403 });
  });

  it('serves a public group without a key, as the least role', async () => {
    const { call } = await appWithGroups([{ path: '/ui', app: echoGroup(), auth: 'none' }]);
    expect(await call('GET', '/ui')).toEqual({
      status: 200,
      body: { at: 'root', caller: { keyId: null, principalId: null, role: 'agent' } },
    });
    expect(await call('GET', '/modules')).toMatchObject({ status: 401 });
  });

  it('keeps the body limit, the JSON content type, the host allow-list and the 404 envelope on groups', async () => {
    const { call, adminKey } = await appWithGroups([{ path: '/mcp', app: echoGroup() }]);
    expect(await call('POST', '/mcp/rpc', adminKey, { text: 'x'.repeat(100) })).toMatchObject({
      status: 413,
      body: { code: 'payload_too_large' },
    });
    expect(await call('GET', '/mcp/nothing-here', adminKey)).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
    const app = createApp(noHost, { routes: [{ path: '/mcp', app: echoGroup() }] });
    const form = await app.request('http://127.0.0.1/mcp/rpc', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form.status).toBe(415);
    const rebound = await app.request('http://127.0.0.1/mcp', { headers: { host: 'evil.example' } });
    expect(rebound.status).toBe(403);
  });

  it('refuses group paths that are malformed or overlap a route', () => {
    const group = (path: string): RouteGroup => ({ path, app: echoGroup() });
    expect(() => createApp(noHost, { routes: [group('mcp')] })).toThrow(/must be like \/mcp/);
    expect(() => createApp(noHost, { routes: [group('/mcp/')] })).toThrow(/must be like \/mcp/);
    expect(() => createApp(noHost, { routes: [group('/tools')] })).toThrow(
      'route group path /tools overlaps /tools',
    );
    expect(() => createApp(noHost, { routes: [group('/services/x')] })).toThrow(/overlaps \/services/);
    expect(() => createApp(noHost, { routes: [group('/a'), group('/a/b')] })).toThrow(/overlaps \/a/);
  });
});
