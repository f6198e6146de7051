import { createKeyRing } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { describeMigration } from './migration-case';

/** Three keys of each role, as a 0016 database holds them. */
async function fill(db: Kysely<Database>): Promise<void> {
  for (const [id, role, at] of [
    ['k1', 'agent', '2026-01-01T00:00:01.000Z'],
    ['k2', 'admin', '2026-01-01T00:00:02.000Z'],
    ['k3', 'approver', '2026-01-01T00:00:03.000Z'],
  ] as const) {
    await sql`insert into api_keys (id, name, role, hash, prefix, created_at, last_used_at, scope)
      values (${id}, ${`key ${id} é`}, ${role}, ${id.repeat(32)}, 'cyk_f', ${at}, null,
        ${role === 'agent' ? '{"services":["git"]}' : null})`.execute(db);
  }
}

/** After 0017 every key has a principal of its own, named after it, and principals work. */
async function expectPrincipals(store: Store): Promise<void> {
  const keys = createKeyRing({ storage: store.keys });
  const { items } = await keys.list();
  expect(items.map((key) => [key.id, key.principalId, key.scope])).toEqual([
    ['k1', 'k1', { services: ['git'] }],
    ['k2', 'k2', null],
    ['k3', 'k3', null],
  ]);
  const principals = await keys.principals.list();
  expect(principals.items).toEqual([
    { id: 'k1', name: 'key k1 é', kind: 'automation', createdAt: '2026-01-01T00:00:01.000Z', keyCount: 1 },
    { id: 'k2', name: 'key k2 é', kind: 'person', createdAt: '2026-01-01T00:00:02.000Z', keyCount: 1 },
    { id: 'k3', name: 'key k3 é', kind: 'person', createdAt: '2026-01-01T00:00:03.000Z', keyCount: 1 },
  ]);
  const phone = await keys.create({ name: 'phone', role: 'agent', principal: 'k2' });
  expect(await keys.principals.get('k2')).toMatchObject({ keyCount: 2 });
  await expect(keys.principals.delete('k2')).rejects.toMatchObject({ reason: 'principal_has_keys' });
  await keys.delete(phone.id);
  await keys.delete('k2');
  await keys.principals.delete('k2');
  expect(await keys.count()).toBe(2);
}

/** The key ids left after {@link expectPrincipals}, read with 0016's columns only. */
async function keyIds(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`select id from api_keys order by id`.execute(db);
  return rows.map((row) => row.id);
}

describeMigration({
  name: '0017-principals',
  previous: '0016-policies',
  title: 'gives every stored key a principal of its own, and is undone by its down',
  fill,
  check: expectPrincipals,
  async afterDown(db, tables) {
    expect(tables).not.toContain('principals');
    expect(await keyIds(db)).toEqual(['k1', 'k3']);
  },
});
