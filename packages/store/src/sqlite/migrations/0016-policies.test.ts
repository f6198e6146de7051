import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALL_ROW_BYTES, storedProcessBytes } from '@cyrnel/core';
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

/** The migrations before 0016 of a dialect. */
const upTo0015 = (all: typeof sqliteMigrations) =>
  Object.fromEntries(Object.entries(all).filter(([name]) => name < '0016'));

/** A service with a tool, a key, a process of it with a call: what a 0015 database holds. */
async function fill(db: Kysely<Database>): Promise<void> {
  await sql`insert into services (id, name, description, adapter, enabled, hash, source, definition,
      config_schema, secrets_schema, adapter_domain, created_at, updated_at)
    values ('svc', 'Svc', '', 'openapi', 1, 'h', null, '{}', '{}', '{}', '{}', 'now', 'now')`.execute(db);
  await sql`insert into tools (service_id, id, name, description, enabled, input_schema, output_schema,
      adapter_domain, keywords, search_id, id_words, name_words)
    values ('svc', 'get', 'Get', '', 1, '{}', '{}', '{}', '[]', 1, 1, 1)`.execute(db);
  await sql`insert into api_keys (id, name, role, hash, prefix, created_at, last_used_at)
    values ('k1', 'agent', 'agent', ${'f'.repeat(64)}, 'cyk_f', 'now', null)`.execute(db);
  await sql`insert into processes (key_id, code, state, stdout, created_at, updated_at)
    values ('k1', 'ç', 'idle', 'out', 'now', 'now')`.execute(db);
  await sql`insert into process_tool_calls (process_id, service_id, tool_id, started_at, duration_ms, ok,
      call_index, pending)
    values (1, 'svc', 'get', 'now', 1, 1, 0, 0)`.execute(db);
}

/** What the rows of {@link fill} read back as after 0016, and that the new columns write. */
async function expectDefaults(store: Store): Promise<void> {
  expect((await store.catalog.getTool('svc', 'get'))?.annotations).toEqual({});
  expect((await store.catalog.listTools({})).map((tool) => tool.annotations)).toEqual([{}]);
  expect((await store.catalog.listServiceTools('svc')).map((tool) => tool.annotations)).toEqual([{}]);
  expect(await store.catalog.getServicePolicy('svc')).toEqual({});
  expect(await store.keys.get('k1')).toMatchObject({ role: 'agent', scope: null, policy: null });
  expect(await store.processes.get(1)).toMatchObject({ state: 'idle', labels: [], approvalId: null });
  expect(await store.processes.calls(1)).toEqual([
    expect.objectContaining({ toolId: 'get', decision: null }),
  ]);
  expect(await store.approvals.listApprovals({ limit: 5 })).toEqual([]);

  // Labels and the awaited approval count nothing, as in `storedProcessBytes`.
  const bytes = storedProcessBytes({ code: 'ç', envConfig: '{}', output: '{}', stdout: 'out', stderr: '' });
  const usage = { storedBytes: bytes + CALL_ROW_BYTES, processes: 1 };
  expect(await store.processes.keyUsage('k1')).toEqual(usage);
  await store.processes.update(1, {
    state: 'waiting',
    labels: ['private', 'untrusted'],
    approvalId: 'ap1',
    updatedAt: 'later',
  });
  expect(await store.processes.get(1)).toMatchObject({ labels: ['private', 'untrusted'], approvalId: 'ap1' });
  expect(await store.processes.keyUsage('k1')).toEqual(usage);
  expect(await store.catalog.setServicePolicy('svc', { default: 'ask' }, 'later')).toBe(true);
}

/** Undo 0016 (its `down`) on a database that used it, leaving 0015's schema. */
async function undo(db: Kysely<Database>, all: typeof sqliteMigrations, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...all }) },
    migrationTableName: 'cyrnel_migration',
    migrationLockTableName: 'cyrnel_migration_lock',
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error } = await migrator.migrateTo('0015-kill-reason');
  if (error) throw error;
}

describe('migration 0016-policies on SQLite', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('reads what a 0015 database holds with the defaults, and is undone by its down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-0016-'));
    dirs.push(dir);
    const filename = join(dir, 'data.db');
    const db = createKysely({ filename });
    await runMigrations(db, upTo0015(sqliteMigrations));
    await fill(db);
    await db.destroy();

    const store = await openSqliteStore({ filename });
    try {
      await expectDefaults(store);
    } finally {
      await store.close();
    }

    const again = createKysely({ filename });
    try {
      await undo(again, sqliteMigrations);
      const tables = (await again.introspection.getTables()).map((table) => table.name);
      expect(tables).not.toContain('approvals');
      expect(tables).not.toContain('service_policies');
    } finally {
      await again.destroy();
    }
    const reopened = await openSqliteStore({ filename });
    try {
      expect(await reopened.processes.get(1)).toMatchObject({ labels: [], approvalId: null });
    } finally {
      await reopened.close();
    }
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('migration 0016-policies on PostgreSQL', () => {
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

  it('reads what a 0015 database holds with the defaults, and is undone by its down', async () => {
    const url = database?.url ?? '';
    const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
    const db = connect(url, schema);
    try {
      await sql`create schema ${sql.id(schema)}`.execute(db);
      await runMigrations(db, upTo0015(postgresMigrations), schema);
      await fill(db);
    } finally {
      await db.destroy();
    }

    const store = await openPostgresStore({ url, schema, maxConnections: 2 });
    try {
      await expectDefaults(store);
    } finally {
      await store.close();
    }

    const again = connect(url, schema);
    try {
      await undo(again, postgresMigrations, schema);
      const tables = (await again.introspection.getTables())
        .filter((table) => table.schema === schema)
        .map((table) => table.name);
      expect(tables).not.toContain('approvals');
      expect(tables).not.toContain('service_policies');
    } finally {
      await again.destroy();
    }
    const reopened = await openPostgresStore({ url, schema, maxConnections: 2 });
    try {
      expect(await reopened.processes.get(1)).toMatchObject({ labels: [], approvalId: null });
    } finally {
      await reopened.close();
    }
  });
});
