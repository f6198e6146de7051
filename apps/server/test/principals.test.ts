import { CyrnelHttpError, createClient } from '@cyrnel/client';
import { describe, expect, it } from 'vitest';
import { apiClient, useServer } from './helpers';

const ADMIN_KEY = 'principals-bootstrap-admin-key-0123456789';

describe('principals: who the API keys belong to', () => {
  const server = useServer({ apiKey: ADMIN_KEY });
  const admin = () => createClient({ baseUrl: server.url(), apiKey: ADMIN_KEY });

  it('gives keys to principals, and a principal of its own to a key made without one', async () => {
    const client = admin();
    const ada = await client.principals.create({ name: 'Ada' });
    expect(ada).toMatchObject({ name: 'Ada', kind: 'person', keyCount: 0 });
    const ci = await client.principals.create({ name: 'ci', kind: 'automation' });
    const laptop = await client.keys.create({ name: 'laptop', role: 'admin', principal: ada.id });
    const phone = await client.keys.create({ name: 'phone', role: 'approver', principal: ada.id });
    const job = await client.keys.create({ name: 'nightly', role: 'agent', principal: ci.id });
    expect([laptop.principalId, phone.principalId, job.principalId]).toEqual([ada.id, ada.id, ci.id]);

    const bot = await client.keys.create({ name: 'support bot', role: 'agent' });
    const ops = await client.keys.create({ name: 'ops', role: 'admin' });
    expect(await client.principals.get(bot.principalId)).toMatchObject({
      name: 'support bot',
      kind: 'automation',
      keyCount: 1,
    });
    expect(await client.principals.get(ops.principalId)).toMatchObject({ name: 'ops', kind: 'person' });

    // Oldest first, each with its key count; the keys' own records name their principal.
    const listed = [];
    for await (const principal of client.principals.iterate({ limit: 2 })) listed.push(principal);
    expect(listed.map((p) => [p.name, p.keyCount])).toEqual([
      ['Ada', 2],
      ['ci', 1],
      ['support bot', 1],
      ['ops', 1],
    ]);
    const keys = (await client.keys.list()).items;
    expect(keys.find((key) => key.id === phone.id)?.principalId).toBe(ada.id);

    // The second key of a person works as its own role says.
    const asPhone = createClient({ baseUrl: server.url(), apiKey: phone.key });
    expect((await asPhone.approvals.list()).items).toEqual([]);
  });

  it('answers 404, 409 and 400 where the principal is unknown, holds keys or does not exist', async () => {
    const client = admin();
    const api = apiClient(server.url(), ADMIN_KEY);
    const missing = await api('GET', '/principals/nobody');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'not_found', reason: 'principal_not_found' });
    expect((await api('DELETE', '/principals/nobody')).body.reason).toBe('principal_not_found');

    const grace = await client.principals.create({ name: 'Grace' });
    const key = await client.keys.create({ name: 'desk', role: 'approver', principal: grace.id });
    const busy = await api('DELETE', `/principals/${grace.id}`);
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ code: 'conflict', reason: 'principal_has_keys' });
    await client.keys.delete(key.id);
    expect((await api('DELETE', `/principals/${grace.id}`)).status).toBe(204);
    expect((await api('GET', `/principals/${grace.id}`)).status).toBe(404);

    const unknown = await api('POST', '/keys', { name: 'x', role: 'agent', principal: 'ghost-principal' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ reason: 'invalid_request' });
    expect(unknown.body.error).toContain('ghost-principal');
    for (const body of [
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'x', kind: 'robot' },
      { kind: 'person' },
    ]) {
      expect((await api('POST', '/principals', body)).status).toBe(400);
    }
    const created = await api('POST', '/principals', { name: 'Linus' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'person', keyCount: 0 });

    const refused = await client.principals.get('nobody').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CyrnelHttpError);
    expect(refused).toMatchObject({ status: 404, reason: 'principal_not_found' });
  });

  it('is for admins only: agent and approver keys get 403', async () => {
    const client = admin();
    const agent = await client.keys.create({ name: 'agent', role: 'agent' });
    const approver = await client.keys.create({ name: 'approver', role: 'approver' });
    for (const key of [agent.key, approver.key]) {
      const api = apiClient(server.url(), key);
      for (const [method, path, body] of [
        ['GET', '/principals'],
        ['POST', '/principals', { name: 'escalate' }],
        ['GET', `/principals/${agent.principalId}`],
        ['DELETE', `/principals/${agent.principalId}`],
      ] as const) {
        const answer = await api(method, path, body);
        expect(answer.status, `${method} ${path}`).toBe(403);
        expect(answer.body.reason).toBe('forbidden');
      }
    }
  });
});
