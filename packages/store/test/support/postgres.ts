import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '../../src/testing/index';

export { POSTGRES_TESTS } from '../../src/testing/index';

/** The database of one test file, and how to drop one of its schemas. */
export interface FileDatabase {
  /** Its URL (only inside the file's tests and hooks). */
  url(): string;
  /** Drop a schema of it with everything in it. */
  dropSchema(schema: string): Promise<void>;
  /**
   * A schema for one test's stores: one a finished test gave back (migrated, its tables empty),
   * else a new name (the first store opened on it migrates it). Migrating a schema is most of what
   * opening a store costs; the kits open one per test.
   */
  schema(): string;
  /**
   * Give `schema` back once every store on it closed: its tables are emptied (identities
   * restarted), so the next test finds it as a fresh store leaves it, migrated.
   */
  release(schema: string): Promise<void>;
}

/** The migrations' own tables: kept, so a schema given back stays migrated. */
const KEPT_TABLES = new Set(['cyrnel_migration', 'cyrnel_migration_lock']);

/**
 * The rows the migrations write into a fresh schema, written again once it is emptied (the test
 * "a schema given back holds what a freshly migrated one holds" keeps this list true).
 */
const SEEDS = ['insert into "$schema".catalog_revision (id, value) values (1, 0)'];

/**
 * A database of the calling test file's own on the test server, created before its tests and
 * dropped after them; its stores work in schemas of their own in it. Not the shared test
 * database: reading a database's tables (what migrating does) fails when another file running
 * beside drops a schema meanwhile.
 */
export function useFileDatabase(prefix = 'cyrnel_s'): FileDatabase {
  let database: FreshDatabase | undefined;
  /** One connection for the file's own statements (a connection is a server process: ≈ 20 ms). */
  let admin: Promise<pg.Client> | undefined;
  beforeAll(async () => {
    if (POSTGRES_TESTS.enabled) database = await freshPostgresDatabase(prefix);
  });
  afterAll(async () => {
    await (await admin)?.end();
    await database?.drop();
  });
  const url = () => {
    if (!database) throw new Error('useFileDatabase: the database is not created yet');
    return database.url;
  };
  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: url() });
    // Ended by the server (a test terminates the database's idle connections): the next
    // statement opens another.
    client.on('error', () => {
      admin = undefined;
    });
    client.on('end', () => {
      admin = undefined;
    });
    await client.connect();
    return client;
  };
  const query = async <Row extends pg.QueryResultRow = { name: string }>(
    text: string,
    values: unknown[] = [],
  ) => {
    admin ??= connect();
    const client = await admin;
    // Without values: the simple protocol, which takes several statements at once.
    return values.length > 0 ? client.query<Row>(text, values) : client.query<Row>(text);
  };
  const pool: string[] = [];
  /** Per schema: the statements that empty it (its tables and sequences do not change). */
  const emptying = new Map<string, string>();
  const emptyingOf = async (schema: string): Promise<string> => {
    const known = emptying.get(schema);
    if (known) return known;
    const tables = await query('select tablename as name from pg_tables where schemaname = $1', [schema]);
    const sequences = await query(
      'select sequence_name as name from information_schema.sequences where sequence_schema = $1',
      [schema],
    );
    const references = await query<{ name: string; parent: string }>(
      `select child.relname as name, parent.relname as parent from pg_constraint c
         join pg_class child on child.oid = c.conrelid join pg_class parent on parent.oid = c.confrelid
         join pg_namespace n on n.oid = child.relnamespace
        where c.contype = 'f' and n.nspname = $1 and child.oid <> parent.oid`,
      [schema],
    );
    // Deletes (a `truncate` makes new files per table: ten times slower on these few rows), each
    // table after every table that refers to it, then the seeds and the sequences, in one round
    // trip. In the schema's search path, for its triggers (a delete updates the per-key totals);
    // twice, so what a trigger wrote into a table already emptied goes too.
    const order = referrersFirst(
      tables.rows.map(({ name }) => name).filter((name) => !KEPT_TABLES.has(name)),
      references.rows,
    );
    const deletes = order.map((name) => `delete from "${schema}"."${name}"`);
    const statements = [
      'begin',
      `set local search_path = "${schema}"`,
      ...deletes,
      ...deletes,
      ...SEEDS.map((seed) => seed.replaceAll('$schema', schema)),
      ...sequences.rows.map(({ name }) => `alter sequence "${schema}"."${name}" restart`),
      'commit',
    ].join(';\n');
    emptying.set(schema, statements);
    return statements;
  };
  return {
    url,
    async dropSchema(schema) {
      await query(`drop schema if exists "${schema}" cascade`);
    },
    schema: () => pool.pop() ?? `cyrnel_t_${randomBytes(6).toString('hex')}`,
    async release(schema) {
      await query(await emptyingOf(schema));
      pool.push(schema);
    },
  };
}

/** `tables` ordered so that each comes before the tables it refers to (`references`: child → parent). */
function referrersFirst(tables: string[], references: { name: string; parent: string }[]): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  const visit = (table: string, path: Set<string>) => {
    if (placed.has(table) || path.has(table)) return;
    path.add(table);
    // Whoever refers to this table goes first.
    for (const reference of references) if (reference.parent === table) visit(reference.name, path);
    placed.add(table);
    order.push(table);
  };
  for (const table of [...tables].sort()) visit(table, new Set());
  return order;
}
