import { createKeyRing, type KeyRow } from '@cyrnel/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyStore } from './key-store';
import { createProcessTestDatabase, type ProcessTestDatabase } from './process-test-database';

const databases: ProcessTestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((database) => database.dispose()));
});

async function openKeys() {
  const database = createProcessTestDatabase();
  databases.push(database);
  const db = await database.open();
  return {
    keys: createKeyRing({ storage: createKeyStore(db, 'sqlite') }),
    storage: createKeyStore(db, 'sqlite'),
    database,
  };
}

describe('createKeyStore', () => {
  it('stores keys hashed: the raw row holds no plaintext key', async () => {
    const { keys, database } = await openKeys();
    const created = await keys.create({ name: 'ci agent', role: 'agent' });
    const raw = new Database(database.file, { readonly: true });
    try {
      const rows = raw.prepare('select * from api_keys').all() as Record<string, unknown>[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        id: created.id,
        name: 'ci agent',
        role: 'agent',
        prefix: created.prefix,
      });
      expect(rows[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
      const text = JSON.stringify(rows);
      expect(text).not.toContain(created.key);
      expect(text).not.toContain(created.key.slice(created.prefix.length));
    } finally {
      raw.close();
    }
  });

  it('finds a key by its key, pages, counts and deletes', async () => {
    const { keys, storage } = await openKeys();
    const admin = await keys.create({ name: 'admin', role: 'admin' });
    const agent = await keys.create({ name: 'agent', role: 'agent' });
    expect(await keys.authenticate(agent.key)).toEqual({
      id: agent.id,
      name: 'agent',
      role: 'agent',
      principalId: agent.principalId,
    });
    expect(await keys.authenticate(admin.key)).toMatchObject({ id: admin.id, role: 'admin' });
    expect((await keys.list()).items.find((key) => key.id === agent.id)?.lastUsedAt).not.toBeNull();
    expect(await keys.count()).toBe(2);
    const first = await keys.list({ limit: 1 });
    const second = await keys.list({ limit: 1, cursor: first.nextCursor as string });
    expect([...first.items, ...second.items].map((key) => key.id).sort()).toEqual(
      [admin.id, agent.id].sort(),
    );
    expect(second.hasMore).toBe(false);
    expect(await storage.delete(agent.id)).toBe('deleted');
    expect(await storage.delete(agent.id)).toBe('not_found');
    expect(await keys.authenticate(agent.key)).toBeUndefined();
    expect(await keys.count()).toBe(1);
  });

  it('refuses a second key with the same hash', async () => {
    const { storage } = await openKeys();
    await storage.insertPrincipal({ id: 'p', name: 'p', kind: 'automation', createdAt: 'now' });
    const row = {
      id: 'a',
      name: 'a',
      principalId: 'p',
      role: 'agent',
      hash: 'f'.repeat(64),
      prefix: 'cyk_x',
      createdAt: 'now',
      lastUsedAt: null,
      scope: null,
      policy: null,
    } as const;
    await storage.insert(row);
    await expect(storage.insert({ ...row, id: 'b' })).rejects.toThrow();
  });

  it("keeps a key's scope and policy and reads a key by its id", async () => {
    const { storage } = await openKeys();
    await storage.insertPrincipal({ id: 'p', name: 'p', kind: 'automation', createdAt: 'now' });
    const row = {
      id: 'a',
      name: 'automation',
      principalId: 'p',
      role: 'agent',
      hash: 'e'.repeat(64),
      prefix: 'cyk_a',
      createdAt: 'now',
      lastUsedAt: null,
      scope: { services: ['git'], tools: ['mail.send'] },
      policy: { default: 'ask', services: { git: 'allow' }, tools: { 'mail.send': 'block' } },
    } satisfies KeyRow;
    await storage.insert(row);
    await storage.insert({ ...row, id: 'b', hash: 'd'.repeat(64), scope: null, policy: null });
    expect(await storage.get('a')).toEqual(row);
    expect(await storage.get('b')).toMatchObject({ scope: null, policy: null });
    expect(await storage.get('nope')).toBeUndefined();
    expect(await storage.findByHash('e'.repeat(64))).toEqual(row);
  });
});
