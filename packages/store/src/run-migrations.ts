import { type Kysely, sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';

const MIGRATION_TABLE = 'cyrnel_migration';
const MIGRATION_LOCK_TABLE = 'cyrnel_migration_lock';

/**
 * The schema this connection works in (PostgreSQL's `current_schema()`), or undefined where the
 * database has none (SQLite). Several cyrnel stores may share a PostgreSQL database in schemas of
 * their own, and introspection lists the tables of every schema: the migration tables that count
 * are the ones of this schema only.
 */
async function currentSchema<DB>(db: Kysely<DB>): Promise<string | undefined> {
  try {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema ?? undefined;
  } catch {
    return undefined;
  }
}

/** Names recorded in the migration table, or none when it does not exist yet. */
async function executedMigrations<DB>(db: Kysely<DB>, schema: string | undefined): Promise<string[]> {
  const tables = await db.introspection.getTables();
  if (
    !tables.some(
      (table) => table.name === MIGRATION_TABLE && (schema === undefined || table.schema === schema),
    )
  )
    return [];
  const rows = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
  return rows.rows.map((row) => row.name);
}

/**
 * Bring the database to this version's schema: `migrations` are a dialect's (`sqliteDialect.migrations`
 * of `@cyrnel/store/sqlite`), run by Kysely's `Migrator`, which speaks every Kysely dialect. A database that ran migrations this version
 * does not know was written by a newer cyrnel: it is refused rather than used half-understood.
 */
export async function runMigrations<DB>(
  db: Kysely<DB>,
  migrations: Readonly<Record<string, Migration>>,
): Promise<void> {
  const schema = await currentSchema(db);
  const unknown = (await executedMigrations(db, schema)).filter((name) => !Object.hasOwn(migrations, name));
  if (unknown.length > 0) {
    throw new Error(
      `the database was written by a newer version of cyrnel (unknown migrations: ${unknown.join(', ')}); ` +
        'upgrade cyrnel or use another data directory',
    );
  }
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    throw new Error(
      `database migration ${failed ?? ''} failed: ${(error as Error).message}`.replace('  ', ' '),
      {
        cause: error,
      },
    );
  }
}
