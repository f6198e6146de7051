import { type Kysely, sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';

const MIGRATION_TABLE = 'cyrnel_migration';
const MIGRATION_LOCK_TABLE = 'cyrnel_migration_lock';

/**
 * The schema this connection works in (PostgreSQL's `current_schema()`), or undefined where the
 * database has none (SQLite): a store opened without a schema of its own works in the
 * connection's, and neighbour schemas must not count for it either.
 */
async function currentSchema<DB>(db: Kysely<DB>): Promise<string | undefined> {
  try {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Names recorded in the migration table, or none when it does not exist yet. On a database with
 * schemas, only `schema`'s table counts: introspection lists every schema's tables, and another
 * cyrnel's (a neighbour schema, a test running beside) is not this one's.
 */
async function executedMigrations<DB>(db: Kysely<DB>, schema: string | undefined): Promise<string[]> {
  const tables = await db.introspection.getTables();
  const ours = (table: { name: string; schema?: string }) =>
    table.name === MIGRATION_TABLE && (schema === undefined || table.schema === schema);
  if (!tables.some(ours)) return [];
  const table = schema === undefined ? MIGRATION_TABLE : `${schema}.${MIGRATION_TABLE}`;
  const rows = await sql<{ name: string }>`select name from ${sql.table(table)}`.execute(db);
  return rows.rows.map((row) => row.name);
}

/**
 * Bring the database to this version's schema: `migrations` are a dialect's (`sqliteDialect.migrations`
 * of `@cyrnel/store/sqlite`), run by Kysely's `Migrator`, which speaks every Kysely dialect. A database that ran migrations this version
 * does not know was written by a newer cyrnel: it is refused rather than used half-understood.
 * `schema` names the schema the tables live in on a database that has schemas (PostgreSQL;
 * default the connection's current schema).
 */
export async function runMigrations<DB>(
  db: Kysely<DB>,
  migrations: Readonly<Record<string, Migration>>,
  explicitSchema?: string,
): Promise<void> {
  const schema = explicitSchema ?? (await currentSchema(db));
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
    // Names are `NNNN-name`: code-unit order is their order. Kysely's default, `localeCompare`,
    // loads ICU's collation data into the server (megabytes of its memory) to sort them.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
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
