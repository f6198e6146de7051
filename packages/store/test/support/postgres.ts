import pg from 'pg';
import { TEST_DATABASE_URL } from '../../src/testing/index';

export { POSTGRES_TESTS, TEST_DATABASE_URL } from '../../src/testing/index';

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
