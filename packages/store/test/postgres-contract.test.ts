import { randomBytes } from 'node:crypto';
import {
  newService,
  newTool,
  runCatalogStorageContract,
  runProcessStorageContract,
} from '@cyrnel/core/testing';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/postgres/index';
import { POSTGRES_TESTS, useFileDatabase } from './support/postgres';

const database = useFileDatabase();

/** A store in a fresh schema of the test database, dropped on close. */
async function postgresStore() {
  const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
  const store = await openPostgresStore({ url: database.url(), schema, maxConnections: 4 });
  return {
    store,
    close: async () => {
      await store.close();
      await database.dropSchema(schema);
    },
  };
}

describe.skipIf(!POSTGRES_TESTS.enabled)('the storage kits on PostgreSQL', () => {
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
});

describe.skipIf(!POSTGRES_TESTS.enabled)('PostgreSQL tool search beyond the kit', () => {
  it('indexes a service of 450 tools (in batches) and finds any of them by id words and by name', async () => {
    const { store, close } = await postgresStore();
    try {
      const tools = Array.from({ length: 450 }, (_, index) =>
        newTool(`op_${index}_item`, {
          name: `Operation number ${index}`,
          description: `handles item ${index}`,
        }),
      );
      await store.catalog.insertService(newService('big', { enabled: true, tools }));
      const search = (text: string) =>
        store.catalog
          .searchTools({ text, adapters: ['openapi'], limit: 5 })
          .then((rows) => rows.map((row) => row.id));
      expect(await search('op_449_item')).toEqual(['op_449_item']);
      expect((await search('449'))[0]).toBe('op_449_item');
      expect(await search('Operation number 201')).toContain('op_201_item');
      expect(await search('nothing like this')).toEqual([]);
    } finally {
      await close();
    }
  });
});
