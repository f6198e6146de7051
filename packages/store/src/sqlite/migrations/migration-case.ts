import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { migrations as postgresMigrations } from '../../postgres/migrations/index';
import { openPostgresStore } from '../../postgres/open-postgres-store';
import { runMigrations } from '../../run-migrations';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '../../testing/index';
import { createKysely } from '../create-kysely';
import { openSqliteStore } from '../open-sqlite-store';
import { migrations as sqliteMigrations } from './index';

type Migrations = typeof sqliteMigrations;

/** One migration tested on a database the migration before it left, on SQLite and PostgreSQL. */
export interface MigrationCase {
  /** The migration, e.g. `0017-principals`. */
  readonly name: string;
  /** The migration before it, which its `down` returns to. */
  readonly previous: string;
  /** What the test says it shows. */
  readonly title: string;
  /** Rows as the previous schema holds them. */
  fill(db: Kysely<Database>): Promise<void>;
  /** What a store opened on that database (migrated up) reads and writes. */
  check(store: Store): Promise<void>;
  /** After `down`: the tables of the schema, and the database itself to read. */
  afterDown(db: Kysely<Database>, tables: readonly string[]): Promise<void>;
  /** Optional: a store opened again after `down` (migrated up once more). */
  reopened?(store: Store): Promise<void>;
}

/** The migrations of a dialect before `name`. */
function before(all: Migrations, name: string): Migrations {
  return Object.fromEntries(Object.entries(all).filter(([key]) => key < name)) as Migrations;
}

/** Run `down` to `previous` on a database that used the migration. */
async function undo(db: Kysely<Database>, all: Migrations, previous: string, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...all }) },
    migrationTableName: 'cyrnel_migration',
    migrationLockTableName: 'cyrnel_migration_lock',
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error } = await migrator.migrateTo(previous);
  if (error) throw error;
}

/** Open a store, hand it to `use`, close it. */
async function withStore(open: () => Promise<Store>, use: (store: Store) => Promise<void>): Promise<void> {
  const store = await open();
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

/** Hand `db` to `use`, then destroy it. */
async function withDb(db: Kysely<Database>, use: (db: Kysely<Database>) => Promise<void>): Promise<void> {
  try {
    await use(db);
  } finally {
    await db.destroy();
  }
}

/**
 * The test of one migration on both databases: a database the migrations before it built is
 * filled, a store opened on it (which migrates up) is checked, the migration's `down` leaves the
 * previous schema, and (optionally) a store opened again migrates up once more.
 *
 * @example
 * ```ts
 * describeMigration({ name: '0017-principals', previous: '0016-policies', title: '…', fill, check, afterDown });
 * ```
 */
export function describeMigration(spec: MigrationCase): void {
  describe(`migration ${spec.name} on SQLite`, () => {
    const dirs: string[] = [];
    afterEach(() => {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });

    it(spec.title, async () => {
      const dir = mkdtempSync(join(tmpdir(), `cyrnel-${spec.name.slice(0, 4)}-`));
      dirs.push(dir);
      const filename = join(dir, 'data.db');
      await withDb(createKysely({ filename }), async (db) => {
        await runMigrations(db, before(sqliteMigrations, spec.name));
        await spec.fill(db);
      });
      await withStore(() => openSqliteStore({ filename }), spec.check);
      await withDb(createKysely({ filename }), async (db) => {
        await undo(db, sqliteMigrations, spec.previous);
        await spec.afterDown(
          db,
          (await db.introspection.getTables()).map((table) => table.name),
        );
      });
      if (spec.reopened) await withStore(() => openSqliteStore({ filename }), spec.reopened);
    });
  });

  describe.skipIf(!POSTGRES_TESTS.enabled)(`migration ${spec.name} on PostgreSQL`, () => {
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

    it(spec.title, async () => {
      const url = database?.url ?? '';
      const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
      await withDb(connect(url, schema), async (db) => {
        await sql`create schema ${sql.id(schema)}`.execute(db);
        await runMigrations(db, before(postgresMigrations, spec.name), schema);
        await spec.fill(db);
      });
      const open = () => openPostgresStore({ url, schema, maxConnections: 2 });
      await withStore(open, spec.check);
      await withDb(connect(url, schema), async (db) => {
        await undo(db, postgresMigrations, spec.previous, schema);
        const tables = (await db.introspection.getTables()).filter((table) => table.schema === schema);
        await spec.afterDown(
          db,
          tables.map((table) => table.name),
        );
      });
      if (spec.reopened) await withStore(open, spec.reopened);
    });
  });
}
