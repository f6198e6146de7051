import { randomBytes } from 'node:crypto';
import { runCatalogStorageContract, runProcessStorageContract } from '@cyrnel/testing';
import pg from 'pg';
import { openPostgresStore } from '../src/postgres/index';

/**
 * The PostgreSQL these tests use: CYRNEL_TEST_DATABASE_URL, else the machine's server on
 * 127.0.0.1:5432 (trust auth, database `test`; README "Tests" says how to get one).
 */
const URL = process.env.CYRNEL_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A store in a fresh schema of the test database, dropped on close. */
async function postgresStore() {
  const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
  const store = await openPostgresStore({ url: URL, schema, maxConnections: 4 });
  return {
    store,
    close: async () => {
      await store.close();
      const client = new pg.Client({ connectionString: URL });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

runCatalogStorageContract({
  name: 'postgres',
  async create() {
    const { store, close } = await postgresStore();
    return { storage: store.catalog, close };
  },
});

runProcessStorageContract({
  name: 'postgres',
  async create() {
    const { store, close } = await postgresStore();
    return { storage: store.processes, close };
  },
});
