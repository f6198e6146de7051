import pg from 'pg';

/**
 * The PostgreSQL these tests use: CYRNEL_TEST_DATABASE_URL, else the machine's server on
 * 127.0.0.1:5432 (trust auth, database `test`; README "Tests" says how to get one).
 */
export const TEST_DATABASE_URL =
  process.env.CYRNEL_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Drop a schema of the test database with everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
