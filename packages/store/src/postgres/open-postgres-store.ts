import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createStore, type Store } from '../create-store';
import type { Database } from '../database';
import { postgresDialect } from './postgres-dialect';

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
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    types: TYPES,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return createStore({ db, dialect: postgresDialect });
}
