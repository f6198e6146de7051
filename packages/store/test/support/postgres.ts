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
}

/**
 * A database of the calling test file's own on the test server, created before its tests and
 * dropped after them; its stores work in schemas of their own in it. Not the shared test
 * database: reading a database's tables (what migrating does) fails when another file running
 * beside drops a schema meanwhile.
 */
export function useFileDatabase(prefix = 'cyrnel_s'): FileDatabase {
  let database: FreshDatabase | undefined;
  beforeAll(async () => {
    if (POSTGRES_TESTS.enabled) database = await freshPostgresDatabase(prefix);
  });
  afterAll(() => database?.drop());
  const url = () => {
    if (!database) throw new Error('useFileDatabase: the database is not created yet');
    return database.url;
  };
  return {
    url,
    async dropSchema(schema) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
