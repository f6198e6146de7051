import { describe, expect, it } from 'vitest';
import { createKeyRing, hashApiKey } from './key-ring';
import { createMemoryKeyStorage } from './memory-key-storage';

describe('createKeyRing', () => {
  it('creates a key shown once and stores only its hash', async () => {
    const storage = createMemoryKeyStorage();
    const keys = createKeyRing({ storage });
    const created = await keys.create({ name: 'ci', role: 'agent' });
    expect(created.key).toMatch(/^cyk_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      name: 'ci',
      role: 'agent',
      lastUsedAt: null,
      prefix: created.key.slice(0, 10),
    });
    const [row] = await storage.list({ limit: 10 });
    expect(row?.hash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);
    const { items } = await keys.list();
    expect(items).toEqual([
      {
        id: created.id,
        name: 'ci',
        principalId: created.principalId,
        role: 'agent',
        prefix: created.prefix,
        createdAt: created.createdAt,
        lastUsedAt: null,
        scope: null,
        policy: null,
      },
    ]);
    expect(await keys.get(created.id)).toEqual(items[0]);
    expect(await keys.get('unknown')).toBeUndefined();
  });

  it('keeps a scope and policy overrides, and refuses unknown policies, fields and names', async () => {
    const storage = createMemoryKeyStorage();
    const keys = createKeyRing({
      storage,
      unknownTools: async (services, tools) =>
        [...services, ...tools].filter((name) => name.startsWith('nope')),
    });
    const created = await keys.create({
      name: 'bot',
      role: 'agent',
      scope: { services: ['git'], tools: ['mail.send'] },
      policy: { default: 'ask', services: { git: 'allow' }, tools: { 'mail.send': 'block' } },
    });
    expect(created).toMatchObject({
      scope: { services: ['git'], tools: ['mail.send'] },
      policy: { default: 'ask', services: { git: 'allow' }, tools: { 'mail.send': 'block' } },
    });
    expect(await keys.rules(created.id)).toEqual({ scope: created.scope, policy: created.policy });
    expect(await keys.rules('unknown')).toBeUndefined();
    const refused = (body: Record<string, unknown>) =>
      expect(keys.create({ name: 'x', role: 'agent', ...body } as never)).rejects.toMatchObject({
        status: 400,
      });
    await refused({ policy: { default: 'maybe' } });
    await refused({ policy: { tools: { unqualified: 'allow' } } });
    await refused({ policy: { other: {} } });
    await refused({ scope: { services: 'git' } });
    await refused({ scope: { services: ['nope'] } });
    await expect(keys.create({ name: 'x', role: 'agent', scope: { tools: ['nope.x'] } })).rejects.toThrow(
      /nope\.x/,
    );
    expect(await keys.create({ name: 'approver', role: 'approver' })).toMatchObject({ role: 'approver' });
  });

  it('authenticates the key, not a near miss, and records the use at most once per interval', async () => {
    let clock = Date.parse('2025-01-01T00:00:00Z');
    const keys = createKeyRing({ storage: createMemoryKeyStorage(), now: () => new Date(clock) });
    const { key, id, principalId } = await keys.create({ name: 'admin', role: 'admin' });
    expect(await keys.authenticate(key)).toEqual({ id, name: 'admin', role: 'admin', principalId });
    const flipped = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    expect(await keys.authenticate(flipped)).toBeUndefined();
    expect(await keys.authenticate('')).toBeUndefined();
    expect(await keys.authenticate(hashApiKey(key))).toBeUndefined();
    const used = (await keys.list()).items[0]?.lastUsedAt;
    expect(used).toBe('2025-01-01T00:00:00.000Z');
    clock += 30_000;
    await keys.authenticate(key);
    expect((await keys.list()).items[0]?.lastUsedAt).toBe(used);
    clock += 30_000;
    await keys.authenticate(key);
    expect((await keys.list()).items[0]?.lastUsedAt).toBe('2025-01-01T00:01:00.000Z');
  });

  it('deletes keys (404 for unknown ones) and refuses them from then on', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const { key, id } = await keys.create({ name: 'gone', role: 'agent' });
    await keys.delete(id);
    expect(await keys.authenticate(key)).toBeUndefined();
    await expect(keys.delete(id)).rejects.toMatchObject({ code: 'not_found' });
    expect(await keys.count()).toBe(0);
  });

  it('keeps an admin key among the stored keys when asked to, and only then', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    const keep = { keepAnAdmin: true };
    for (const role of ['agent', 'approver'] as const) {
      await expect(keys.create({ name: 'bot', role }, keep)).rejects.toMatchObject({
        status: 409,
        reason: 'first_key_not_admin',
        message: expect.stringMatching(/no admin key is stored yet: create an admin key first/),
      });
    }
    expect(await keys.count()).toBe(0);
    const admin = await keys.create({ name: 'me', role: 'admin' }, keep);
    const agent = await keys.create({ name: 'bot', role: 'agent' }, keep);
    await expect(keys.delete(admin.id, keep)).rejects.toMatchObject({
      status: 409,
      reason: 'last_admin',
      message: expect.stringContaining(`key ${admin.id} is the last admin key`),
    });
    await keys.delete(agent.id, keep);
    const second = await keys.create({ name: 'colleague', role: 'admin' }, keep);
    await keys.delete(admin.id, keep);
    expect((await keys.list()).items.map((key) => key.id)).toEqual([second.id]);
    await expect(keys.delete('nope', keep)).rejects.toMatchObject({ reason: 'key_not_found' });
    // Not asked (the embedder has an admin of its own, a bootstrap key): neither is refused.
    await keys.delete(second.id);
    expect(await keys.create({ name: 'bot', role: 'agent' })).toMatchObject({ role: 'agent' });
  });

  it('validates names and roles', async () => {
    const keys = createKeyRing({ storage: createMemoryKeyStorage() });
    for (const request of [
      { name: '', role: 'agent' },
      { name: ' ', role: 'agent' },
      { name: 'x'.repeat(101), role: 'agent' },
      { name: 'x', role: 'root' },
      { name: 'x' },
      { name: 'x', role: 'agent', extra: true },
    ]) {
      await expect(keys.create(request as never)).rejects.toMatchObject({ code: 'invalid_request' });
    }
  });

  it('pages keys oldest first with an opaque cursor', async () => {
    let clock = 0;
    const keys = createKeyRing({ storage: createMemoryKeyStorage(), now: () => new Date(clock++ * 1000) });
    for (const name of ['a', 'b', 'c']) await keys.create({ name, role: 'agent' });
    const first = await keys.list({ limit: 2 });
    expect(first.items.map((key) => key.name)).toEqual(['a', 'b']);
    expect(first.hasMore).toBe(true);
    const second = await keys.list({ limit: 2, cursor: first.nextCursor as string });
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    expect(second.items.map((key) => key.name)).toEqual(['c']);
    await expect(keys.list({ cursor: 'nope' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
