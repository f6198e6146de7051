import { createClient } from '@cyrnel/client';
import { describe, expect, it } from 'vitest';
import { useServer } from './helpers';

describe('GET /me on the server', () => {
  const server = useServer({ apiKey: 'who-am-i-bootstrap' });

  it('tells each key its role, key and principal, the agent key without a refusal', async () => {
    const admin = createClient({ baseUrl: server.url(), apiKey: 'who-am-i-bootstrap' });
    await expect(admin.me()).resolves.toEqual({
      signIn: 'bootstrap',
      role: 'admin',
      key: null,
      principal: null,
    });
    const grace = await admin.principals.create({ name: 'Grace' });
    for (const role of ['agent', 'approver', 'admin'] as const) {
      const created = await admin.keys.create({ name: `${role} key`, role, principal: grace.id });
      const caller = createClient({ baseUrl: server.url(), apiKey: created.key });
      await expect(caller.me()).resolves.toEqual({
        signIn: 'key',
        role,
        key: { id: created.id, name: `${role} key`, prefix: created.prefix },
        principal: { id: grace.id, name: 'Grace', kind: 'person' },
      });
    }
    const none = createClient({ baseUrl: server.url() });
    await expect(none.me()).rejects.toMatchObject({ status: 401, reason: 'unauthorized' });
  });
});

describe('GET /me on a server without keys', () => {
  const server = useServer();

  it('answers every request as the open server’s admin', async () => {
    const client = createClient({ baseUrl: server.url() });
    await expect(client.me()).resolves.toEqual({ signIn: 'open', role: 'admin', key: null, principal: null });
  });
});
