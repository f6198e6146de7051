import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_TESTS, TEST_DATABASE_URL } from '../testing/index';
import { openPostgresStore } from './open-postgres-store';

const schemas: string[] = [];

/** A schema name of its own, dropped after the suite. */
function freshSchema(): string {
  const schema = `cyrnel_o_${randomBytes(6).toString('hex')}`;
  schemas.push(schema);
  return schema;
}

afterAll(async () => {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
});

describe.skipIf(!POSTGRES_TESTS.enabled)('openPostgresStore', () => {
  it("migrates a fresh schema while another schema of the database holds a cyrnel's tables", async () => {
    const first = await openPostgresStore({
      url: TEST_DATABASE_URL,
      schema: freshSchema(),
      maxConnections: 2,
    });
    try {
      // The second store's introspection sees the first one's migration table: it is not its own.
      const second = await openPostgresStore({
        url: TEST_DATABASE_URL,
        schema: freshSchema(),
        maxConnections: 2,
      });
      try {
        expect(await second.catalog.listServices({ limit: 10 })).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
