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

/**
 * A store in a fresh schema of the test database, dropped on close; `reused`: in a schema the kits'
 * tests hand on (migrated once, its tables emptied between tests).
 */
async function postgresStore(reused = false) {
  const schema = reused ? database.schema() : `cyrnel_t_${randomBytes(6).toString('hex')}`;
  const store = await openPostgresStore({ url: database.url(), schema, maxConnections: 4 });
  return {
    store,
    close: async () => {
      await store.close();
      await (reused ? database.release(schema) : database.dropSchema(schema));
    },
  };
}

describe.skipIf(!POSTGRES_TESTS.enabled)('the storage kits on PostgreSQL', () => {
  runCatalogStorageContract({
    name: 'postgres',
    async create() {
      const { store, close } = await postgresStore(true);
      return { storage: store.catalog, close };
    },
  });

  runProcessStorageContract({
    name: 'postgres',
    async create() {
      const { store, close } = await postgresStore(true);
      return { storage: store.processes, close };
    },
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('PostgreSQL tool search beyond the kit', () => {
  it('indexes a service of 450 tools (in batches) and finds any of them, with its annotations, by id words and by name', async () => {
    const { store, close } = await postgresStore();
    try {
      const tools = Array.from({ length: 450 }, (_, index) =>
        newTool(`op_${index}_item`, {
          name: `Operation number ${index}`,
          description: `handles item ${index}`,
          annotations: index % 2 === 0 ? { readOnly: true } : { destructive: true },
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
      // Each found tool carries its own annotations (read beside what `search_tools` answers).
      const found = await store.catalog.searchTools({
        text: 'operation number',
        adapters: ['openapi'],
        limit: 20,
      });
      expect(found).toHaveLength(20);
      for (const tool of found) {
        const index = Number(tool.id.split('_')[1]);
        expect(tool.annotations, tool.id).toEqual(
          index % 2 === 0 ? { readOnly: true } : { destructive: true },
        );
      }
    } finally {
      await close();
    }
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('PostgreSQL stores in schemas of one database', () => {
  it('migrates a fresh schema whatever another schema of the database holds, and refuses only its own newer migrations', async () => {
    // A schema holding nothing but a migration table of a newer cyrnel (as a crashed or later
    // version might leave): the introspection lists it beside this store's own tables.
    const stranger = `cyrnel_t_${randomBytes(6).toString('hex')}`;
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: database.url() });
    await admin.connect();
    try {
      await admin.query(`create schema "${stranger}"`);
      await admin.query(
        `create table "${stranger}".cyrnel_migration (name text primary key, timestamp text)`,
      );
      await admin.query(`insert into "${stranger}".cyrnel_migration values ('9999-from-the-future', 'now')`);
      const { store, close } = await postgresStore();
      try {
        expect(await store.catalog.listServices({ limit: 1 })).toEqual([]);
      } finally {
        await close();
      }
      // Opened in the stranger's own schema, the newer migration is refused as before.
      await expect(
        openPostgresStore({ url: database.url(), schema: stranger, maxConnections: 1 }),
      ).rejects.toThrow(/newer version of cyrnel \(unknown migrations: 9999-from-the-future\)/);
    } finally {
      await admin.query(`drop schema if exists "${stranger}" cascade`);
      await admin.end();
    }
  });

  it('a schema given back holds what a freshly migrated one holds', async () => {
    const rows = async (schema: string) => {
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: database.url() });
      await admin.connect();
      try {
        const tables = await admin.query<{ tablename: string }>(
          'select tablename from pg_tables where schemaname = $1 order by tablename',
          [schema],
        );
        const held: Record<string, unknown[]> = {};
        for (const { tablename } of tables.rows) {
          if (tablename.startsWith('cyrnel_migration')) continue;
          held[tablename] = (await admin.query(`select * from "${schema}"."${tablename}"`)).rows;
        }
        return held;
      } finally {
        await admin.end();
      }
    };
    const fresh = `cyrnel_t_${randomBytes(6).toString('hex')}`;
    await (await openPostgresStore({ url: database.url(), schema: fresh, maxConnections: 1 })).close();
    const expected = await rows(fresh);
    await database.dropSchema(fresh);
    // Used, then given back: what the kits' next test opens.
    const { store, close } = await postgresStore(true);
    await store.catalog.insertService(newService('used', { enabled: true, tools: [newTool('t')] }));
    await store.catalog.bumpCatalogRevision?.();
    await close();
    const given = database.schema();
    try {
      expect(await rows(given)).toEqual(expected);
    } finally {
      await database.release(given);
    }
  });

  it('survives the server ending its idle connections and answers the next query on a new one', async () => {
    const { store, close } = await postgresStore();
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: database.url() });
    await admin.connect();
    try {
      expect(await store.catalog.listServices({ limit: 1 })).toEqual([]);
      // What a restart or an administrator does to the store's pooled (idle) connections.
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state = 'idle'`,
      );
      await expect
        .poll(async () =>
          store.catalog.listServices({ limit: 1 }).then(
            (rows) => rows.length,
            () => -1,
          ),
        )
        .toBe(0);
    } finally {
      await admin.end();
      await close();
    }
  });
});
