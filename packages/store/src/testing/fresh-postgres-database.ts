import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_DATABASE_URL } from './test-database-url';

/** A database created for one suite, and how to drop it. */
export interface FreshDatabase {
  readonly name: string;
  /** Its URL: {@link TEST_DATABASE_URL} with this database. */
  readonly url: string;
  /** Drop it, closing its connections (the servers on it stopped first). */
  drop(): Promise<void>;
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Create a database `<prefix>_<random hex>` on {@link TEST_DATABASE_URL}'s server, for servers
 * started on it with `--database-url` (they run the migrations themselves).
 *
 * @example
 * ```ts
 * const database = await freshPostgresDatabase('cyrnel_e');
 * // … start servers with CYRNEL_DATABASE_URL=database.url …
 * await database.drop();
 * ```
 */
export async function freshPostgresDatabase(prefix: string): Promise<FreshDatabase> {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) throw new Error(`"${prefix}" is not a database name prefix`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
