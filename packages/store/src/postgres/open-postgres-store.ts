import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createStore, type Store } from '../create-store';
import type { Database } from '../database';
import { postgresDialect } from './postgres-dialect';
import { createPostgresSignals } from './postgres-signals';

/** Options of {@link openPostgresStore}. */
export interface OpenPostgresStoreOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: string;
  /** A schema of its own (created when missing), e.g. one per test; default the connection's. */
  readonly schema?: string;
  /** Most connections the pool opens. Default 10. */
  readonly maxConnections?: number;
}

/** int8 (`count(*)`, `bigint`) as numbers, as SQLite answers them; the rest as `pg` parses it. */
const TYPES = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Open (and migrate, under kysely's advisory lock, so hosts starting together are safe) a store
 * on PostgreSQL.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url: 'postgres://127.0.0.1:5432/cyrnel' });
 * ```
 */
export async function openPostgresStore(options: OpenPostgresStoreOptions): Promise<Store> {
  if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema))
    throw new Error(
      `"${options.schema}" is not a schema name this store uses (lowercase letters, digits, _)`,
    );
  if (options.schema !== undefined) {
    const setup = new pg.Client({ connectionString: options.url });
    await setup.connect();
    try {
      await setup.query(`create schema if not exists "${options.schema}"`);
    } finally {
      await setup.end();
    }
  }
  const config = {
    connectionString: options.url,
    types: TYPES,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  };
  const pool = new pg.Pool({ ...config, max: options.maxConnections ?? 10 });
  // An idle connection the server ends (a restart, a failover, an administrator) is dropped by the
  // pool, which connects anew for the next query; unheard, the event would end the process.
  pool.on('error', () => undefined);
  // The schema the connections work in (the one given, else the server's default): the
  // migrations look at its record only, and it names the signal channel.
  let schema: string | undefined;
  try {
    const { rows } = await pool.query<{ schema: string | null }>('select current_schema() as schema');
    schema = rows[0]?.schema ?? undefined;
  } catch (error) {
    await pool.end();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const store = await createStore({
    db,
    dialect: postgresDialect,
    ...(schema === undefined ? {} : { schema }),
  });
  // One channel per schema: hosts of one schema hear each other, and only each other.
  let signals: ReturnType<typeof createPostgresSignals>;
  try {
    signals = createPostgresSignals({
      connect: async () => {
        const client = new pg.Client(config);
        await client.connect();
        return client;
      },
      pool,
      channel: `cyrnel:${schema ?? 'public'}`,
    });
    await signals.start();
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    ...store,
    signals,
    close: async () => {
      await signals.close();
      await store.close();
    },
  };
}
