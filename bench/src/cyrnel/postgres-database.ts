import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL of the machine (`CYRNEL_TEST_DATABASE_URL`, else 127.0.0.1:5432, trust auth). */
const ADMIN_URL = process.env.CYRNEL_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A database created for one part of the bench, and the server variables that select it. */
export interface BenchDatabase {
  /** `CYRNEL_DATABASE_URL` and the `CYRNEL_SECRETS_KEY` every host on it must share. */
  readonly env: Record<string, string>;
  /** Drop the database (its servers stopped first). */
  dispose(): Promise<void>;
}

/** Create a fresh PostgreSQL database `cyrnel_bench_*` on the machine's server (issue 22). */
export async function freshPostgresDatabase(): Promise<BenchDatabase> {
  const name = `cyrnel_bench_${randomBytes(5).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    env: { CYRNEL_DATABASE_URL: url.toString(), CYRNEL_SECRETS_KEY: randomBytes(32).toString('base64') },
    dispose: () => admin(`drop database if exists ${name} with (force)`),
  };
}
