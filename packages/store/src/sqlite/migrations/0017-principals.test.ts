import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeyRing } from '@cyrnel/core';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { migrations as postgresMigrations } from '../../postgres/migrations/index';
import { openPostgresStore } from '../../postgres/open-postgres-store';
import { runMigrations } from '../../run-migrations';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '../../testing/index';
import { createKysely } from '../create-kysely';
import { openSqliteStore } from '../open-sqlite-store';
import { migrations as sqliteMigrations } from './index';

/** The migrations before 0017 of a dialect. */
const upTo0016 = (all: typeof sqliteMigrations) =>
  Object.fromEntries(Object.entries(all).filter(([name]) => name < '0017'));

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

/** Undo 0017 (its `down`) on a database that used it, leaving 0016's schema. */
async function undo(db: Kysely<Database>, all: typeof sqliteMigrations, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...all }) },
    migrationTableName: 'cyrnel_migration',
    migrationLockTableName: 'cyrnel_migration_lock',
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error } = await migrator.migrateTo('0016-policies');
  if (error) throw error;
}

/** The key ids left after {@link expectPrincipals}, read with 0016's columns only. */
async function keyIds(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`select id from api_keys order by id`.execute(db);
  return rows.map((row) => row.id);
}

describe('migration 0017-principals on SQLite', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('gives every stored key a principal of its own, and is undone by its down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-0017-'));
    dirs.push(dir);
    const filename = join(dir, 'data.db');
    const db = createKysely({ filename });
    await runMigrations(db, upTo0016(sqliteMigrations));
    await fill(db);
    await db.destroy();

    const store = await openSqliteStore({ filename });
    try {
      await expectPrincipals(store);
    } finally {
      await store.close();
    }

    const again = createKysely({ filename });
    try {
      await undo(again, sqliteMigrations);
      const tables = (await again.introspection.getTables()).map((table) => table.name);
      expect(tables).not.toContain('principals');
      expect(await keyIds(again)).toEqual(['k1', 'k3']);
    } finally {
      await again.destroy();
    }
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('migration 0017-principals on PostgreSQL', () => {
  let database: FreshDatabase | undefined;
  beforeAll(async () => {
    database = await freshPostgresDatabase('cyrnel_m');
  });
  afterAll(() => database?.drop());

  /** A Kysely instance working in `schema` of the suite's database. */
  const connect = (url: string, schema: string) =>
    new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` }),
      }),
    });

  it('gives every stored key a principal of its own, and is undone by its down', async () => {
    const url = database?.url ?? '';
    const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
    const db = connect(url, schema);
    try {
      await sql`create schema ${sql.id(schema)}`.execute(db);
      await runMigrations(db, upTo0016(postgresMigrations), schema);
      await fill(db);
    } finally {
      await db.destroy();
    }

    const store = await openPostgresStore({ url, schema, maxConnections: 2 });
    try {
      await expectPrincipals(store);
    } finally {
      await store.close();
    }

    const again = connect(url, schema);
    try {
      await undo(again, postgresMigrations, schema);
      const tables = (await again.introspection.getTables())
        .filter((table) => table.schema === schema)
        .map((table) => table.name);
      expect(tables).not.toContain('principals');
      expect(await keyIds(again)).toEqual(['k1', 'k3']);
    } finally {
      await again.destroy();
    }
  });
});
