import { createKeyRing } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { describeMigration } from './migration-case';

/** Two principals as a database before 0019 holds them, one with a key. */
async function fill(db: Kysely<Database>): Promise<void> {
  await sql`insert into principals (id, name, kind, created_at)
    values ('p1', 'Ada é', 'person', '2026-01-01T00:00:01.000Z'),
           ('p2', 'ci', 'automation', '2026-01-01T00:00:02.000Z')`.execute(db);
  await sql`insert into api_keys (id, name, role, hash, prefix, created_at, last_used_at, principal_id)
    values ('k1', 'laptop', 'agent', ${'a'.repeat(64)}, 'cyk_f', '2026-01-01T00:00:03.000Z', null, 'p1')`.execute(
    db,
  );
}

const ALICE = 'https://as.example#alice';

/** After 0019 the old principals have no subject, and a subject finds exactly one principal. */
async function expectSubjects(store: Store): Promise<void> {
  const keys = createKeyRing({ storage: store.keys });
  expect((await keys.principals.list()).items.map((p) => [p.id, p.name, p.keyCount])).toEqual([
    ['p1', 'Ada é', 1],
    ['p2', 'ci', 0],
  ]);
  expect((await store.keys.getPrincipal('p1'))?.externalSubject).toBeUndefined();
  const [alice, again] = await Promise.all([
    keys.principals.forSubject({ subject: ALICE, name: 'Alice' }),
    keys.principals.forSubject({ subject: ALICE, name: 'Alice' }),
  ]);
  expect(again.id).toBe(alice.id);
  expect(await store.keys.findPrincipalBySubject(ALICE)).toMatchObject({
    id: alice.id,
    externalSubject: ALICE,
  });
  await expect(
    store.keys.insertPrincipal({
      id: 'p9',
      name: 'copy',
      kind: 'person',
      createdAt: '2026-01-01T00:00:09.000Z',
      externalSubject: ALICE,
    }),
  ).rejects.toThrow();
  // Principals without a subject are many: the unique index holds many nulls.
  await keys.principals.create({ name: 'Bob' });
  expect((await keys.principals.list()).items).toHaveLength(4);
}

describeMigration({
  name: '0019-principal-subjects',
  previous: '0018-connections',
  title: 'gives principals a unique, nullable external subject, and is undone by its down',
  fill,
  check: expectSubjects,
  async afterDown(db, tables) {
    expect(tables).toContain('principals');
    const { rows } = await sql<{ id: string }>`select id from principals order by created_at, id`.execute(db);
    expect(rows.map((row) => row.id).slice(0, 2)).toEqual(['p1', 'p2']);
    expect(rows).toHaveLength(4);
  },
  async reopened(store) {
    expect(await store.keys.findPrincipalBySubject(ALICE)).toBeUndefined();
  },
});
