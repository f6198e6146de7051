import { describe, expect, it } from 'vitest';
import { createKeyRing } from './key-ring';
import { createMemoryKeyStorage } from './memory-key-storage';

describe('principals of the key ring', () => {
  it('creates people by default and automations when asked, and reads them back with their keys', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const ada = await keys.principals.create({ name: 'Ada' });
    expect(ada).toMatchObject({ name: 'Ada', kind: 'person', keyCount: 0 });
    expect(ada.id).toMatch(/^[0-9a-f]{16}$/);
    const ci = await keys.principals.create({ name: 'ci', kind: 'automation' });
    const laptop = await keys.create({ name: 'laptop', role: 'approver', principal: ada.id });
    await keys.create({ name: 'phone', role: 'agent', principal: ada.id });
    expect(laptop.principalId).toBe(ada.id);
    expect(await keys.principals.get(ada.id)).toEqual({ ...ada, keyCount: 2 });
    expect(await keys.principals.get(ci.id)).toMatchObject({ kind: 'automation', keyCount: 0 });
  });

  it('gives a key made without a principal one of its own, named after the key', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const agent = await keys.create({ name: 'ci bot', role: 'agent' });
    const admin = await keys.create({ name: 'ops', role: 'admin' });
    const approver = await keys.create({ name: 'reviewer', role: 'approver' });
    expect(new Set([agent.principalId, admin.principalId, approver.principalId]).size).toBe(3);
    expect(await keys.principals.get(agent.principalId)).toMatchObject({
      name: 'ci bot',
      kind: 'automation',
      keyCount: 1,
      createdAt: agent.createdAt,
    });
    expect(await keys.principals.get(admin.principalId)).toMatchObject({ name: 'ops', kind: 'person' });
    expect(await keys.principals.get(approver.principalId)).toMatchObject({ kind: 'person' });
  });

  it('refuses a key naming a principal that does not exist, and writes nothing', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    await expect(keys.create({ name: 'x', role: 'agent', principal: 'nobody' })).rejects.toMatchObject({
      status: 400,
      reason: 'invalid_request',
      message: expect.stringContaining('nobody'),
    });
    expect(await keys.count()).toBe(0);
    expect((await keys.principals.list()).items).toEqual([]);
  });

  it('validates names and kinds', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    for (const body of [
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'x', kind: 'robot' },
      { name: 'x', extra: 1 },
    ]) {
      await expect(keys.principals.create(body as never)).rejects.toMatchObject({ status: 400 });
    }
    expect(await keys.principals.create({ name: 'x'.repeat(100) })).toMatchObject({ kind: 'person' });
  });

  it('deletes a principal only once no key belongs to it (404 for unknown ones)', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const ada = await keys.principals.create({ name: 'Ada' });
    const key = await keys.create({ name: 'laptop', role: 'admin', principal: ada.id });
    await expect(keys.principals.delete(ada.id)).rejects.toMatchObject({
      status: 409,
      reason: 'principal_has_keys',
    });
    await keys.delete(key.id);
    await keys.principals.delete(ada.id);
    await expect(keys.principals.get(ada.id)).rejects.toMatchObject({
      status: 404,
      reason: 'principal_not_found',
    });
    await expect(keys.principals.delete(ada.id)).rejects.toMatchObject({ reason: 'principal_not_found' });
  });

  it('pages principals oldest first with an opaque cursor', async () => {
    let clock = Date.parse('2025-01-01T00:00:00Z');
    const tick = () => {
      clock += 1000;
      return new Date(clock);
    };
    const keys = createKeyRing({ storage: createMemoryKeyStorage(), now: tick });
    for (const name of ['a', 'b', 'c']) await keys.principals.create({ name });
    const first = await keys.principals.list({ limit: 2 });
    expect(first.items.map((p) => p.name)).toEqual(['a', 'b']);
    expect(first.hasMore).toBe(true);
    const second = await keys.principals.list({ limit: 2, cursor: first.nextCursor ?? '' });
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    expect(second.items.map((p) => p.name)).toEqual(['c']);
  });

  it('makes one person per OAuth subject on its first use and finds it after, also when two race', async () => {
    const storage = createMemoryKeyStorage();
    const keys = createKeyRing({ storage });
    const subject = 'https://as.example#alice';
    const [first, racing] = await Promise.all([
      keys.principals.forSubject({ subject, name: 'Alice' }),
      keys.principals.forSubject({ subject, name: 'Alice again' }),
    ]);
    expect(first).toMatchObject({ name: 'Alice', kind: 'person', keyCount: 0 });
    expect(racing.id).toBe(first.id);
    expect((await keys.principals.forSubject({ subject, name: 'renamed' })).id).toBe(first.id);
    expect(await storage.findPrincipalBySubject(subject)).toMatchObject({
      id: first.id,
      externalSubject: subject,
    });
    const bob = await keys.principals.forSubject({ subject: 'https://as.example#bob', name: '  ' });
    expect(bob.id).not.toBe(first.id);
    expect(bob.name).toBe('https://as.example#bob');
    const long = await keys.principals.forSubject({
      subject: 'https://as.example#c',
      name: 'x'.repeat(1000),
    });
    expect(long.name.length).toBeLessThan(1000);
    // The record the API answers carries no subject.
    expect(Object.keys(await keys.principals.get(first.id)).sort()).toEqual([
      'createdAt',
      'id',
      'keyCount',
      'kind',
      'name',
    ]);
  });
});
