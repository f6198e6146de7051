import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshPostgresDatabase, POSTGRES_TESTS } from '../testing/index';
import { openPostgresStore } from './open-postgres-store';

describe.skipIf(!POSTGRES_TESTS.enabled)('openPostgresStore', () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshPostgresDatabase('cyrnel_o');
  });
  afterAll(() => database?.drop());

  it("migrates a fresh schema while another schema of the database holds a cyrnel's tables", async () => {
    const first = await openPostgresStore({ url: database.url, schema: 'first', maxConnections: 2 });
    try {
      // The second store's introspection sees the first one's migration table: it is not its own.
      const second = await openPostgresStore({ url: database.url, schema: 'second', maxConnections: 2 });
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
