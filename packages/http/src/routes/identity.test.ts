import { type CyrnelHost, createKeyRing, createMemoryKeyStorage } from '@cyrnel/core';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../app-env';
import { createApp } from '../create-app';

// `GET /me` answers without the host: one that fails every use shows it was not needed.
const noHost = new Proxy({} as CyrnelHost, {
  get: () => {
    throw new Error('the host was not needed');
  },
});

async function me(app: ReturnType<typeof createApp>, key?: string) {
  const response = await app.request('http://127.0.0.1/me', {
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
  });
  return {
    status: response.status,
    cache: response.headers.get('cache-control'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('GET /me', () => {
  it('answers each stored key its own identity, whatever its role, and never the key', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const admin = await keys.create({ name: 'ops', role: 'admin' });
    const ada = await keys.principals.create({ name: 'Ada' });
    const approver = await keys.create({ name: 'phone', role: 'approver', principal: ada.id });
    const agent = await keys.create({ name: 'ci bot', role: 'agent' });
    const app = createApp(noHost, { keys });
    for (const [created, principal] of [
      [admin, { id: admin.principalId, name: 'ops', kind: 'person' }],
      [approver, { id: ada.id, name: 'Ada', kind: 'person' }],
      [agent, { id: agent.principalId, name: 'ci bot', kind: 'automation' }],
    ] as const) {
      const answer = await me(app, created.key);
      expect(answer).toEqual({
        status: 200,
        cache: 'no-store',
        body: {
          signIn: 'key',
          role: created.role,
          key: { id: created.id, name: created.name, prefix: created.key.slice(0, 10) },
          principal,
        },
      });
      expect(JSON.stringify(answer.body)).not.toContain(created.key);
    }
    // Like every route that needs a key: none, or a revoked one, is 401.
    expect((await me(app)).status).toBe(401);
    await keys.delete(agent.id);
    expect(await me(app, agent.key)).toMatchObject({ status: 401, body: { reason: 'unauthorized' } });
  });

  it('names the bootstrap key and an open server, neither with a key or a principal', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const open = createApp(noHost, { keys });
    expect((await me(open)).body).toEqual({ signIn: 'open', role: 'admin', key: null, principal: null });
    const withBootstrap = createApp(noHost, { keys, apiKey: 'bootstrap-key' });
    expect((await me(withBootstrap, 'bootstrap-key')).body).toEqual({
      signIn: 'bootstrap',
      role: 'admin',
      key: null,
      principal: null,
    });
    expect((await me(withBootstrap)).status).toBe(401);
  });

  it("answers an OAuth access token's principal where the app takes tokens", async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const person = await keys.principals.forSubject({ subject: 'https://idp.example#u1', name: 'Grace' });
    const signedIn: Caller = {
      keyId: `principal:${person.id}`,
      principalId: person.id,
      role: 'agent',
      oauthSubject: 'https://idp.example#u1',
    };
    const app = createApp(noHost, {
      keys,
      oauth: {
        paths: ['/me'],
        verify: async (token) => (token === 'good-token' ? signedIn : undefined),
        challenge:
          'Bearer resource_metadata="https://cyrnel.example.com/.well-known/oauth-protected-resource"',
      },
    });
    expect((await me(app, 'good-token')).body).toEqual({
      signIn: 'oauth',
      role: 'agent',
      key: null,
      principal: { id: person.id, name: 'Grace', kind: 'person' },
    });
    expect((await me(app, 'bad-token')).status).toBe(401);
  });
});
