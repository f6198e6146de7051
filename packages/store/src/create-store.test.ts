import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewService } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from './create-store';
import type { Database } from './database';
import { createKysely } from './sqlite/create-kysely';
import { sqliteDialect } from './sqlite/sqlite-dialect';
import type { StoreDialect } from './store-dialect';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function database(): Kysely<Database> {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-create-store-'));
  dirs.push(dir);
  return createKysely({ filename: join(dir, 'data.db') });
}

async function tableNames(db: Kysely<Database>): Promise<string[]> {
  return (await db.introspection.getTables()).map((table) => table.name);
}

function service(id: string): NewService {
  const tool = {
    name: 'Ping',
    description: 'answers pong',
    enabled: true,
    inputSchema: {},
    outputSchema: {},
  };
  return {
    id,
    adapter: 'test',
    enabled: true,
    name: id,
    description: '',
    hash: 'h',
    source: null,
    definition: '{}',
    configSchema: {},
    secretsSchema: {},
    adapterDomain: {},
    tools: [{ ...tool, id: 'ping', adapterDomain: {} }],
    config: {},
    secrets: null,
    createdAt: new Date(0).toISOString(),
  };
}

describe('createStore', () => {
  it('migrates a Kysely database with the dialect, builds every port, and close() destroys it', async () => {
    const db = database();
    const store = await createStore({ db, dialect: sqliteDialect });
    expect(store.dialect).toBe('sqlite');
    expect(await tableNames(db)).toEqual(expect.arrayContaining(['services', 'processes', 'api_keys']));
    await store.catalog.insertService(service('pets'));
    expect(await store.keys.count()).toBe(0);
    expect((await store.processes.list({ limit: 10 })).length).toBe(0);
    const found = await store.catalog.searchTools({ text: 'ping', adapters: ['test'], limit: 5 });
    expect(found.map((tool) => `${tool.serviceId}.${tool.id}`)).toEqual(['pets.ping']);
    await store.close();
    await expect(sql`select 1`.execute(db)).rejects.toThrow();
  });

  it("uses the dialect's tool search and its test for duplicate keys", async () => {
    const calls: string[] = [];
    const dialect: StoreDialect = {
      ...sqliteDialect,
      toolSearch: {
        add: async (trx, indexed) => {
          calls.push(`add ${indexed.serviceId} ${indexed.tools.length}`);
          await sqliteDialect.toolSearch.add(trx, indexed);
        },
        remove: async (trx, serviceId) => {
          calls.push(`remove ${serviceId}`);
          await sqliteDialect.toolSearch.remove(trx, serviceId);
        },
        search: () => async () => {
          calls.push('search');
          return [];
        },
      },
      // A driver error it does not recognise stays what it was: no service_exists.
      isUniqueViolation: () => false,
    };
    const store = await createStore({ db: database(), dialect });
    await store.catalog.insertService(service('pets'));
    expect(await store.catalog.searchTools({ text: 'ping', adapters: ['test'], limit: 5 })).toEqual([]);
    expect(await store.catalog.deleteService('pets')).toBe(true);
    expect(calls).toEqual(['add pets 1', 'search', 'remove pets']);
    await store.catalog.insertService(service('pets'));
    const duplicate = await store.catalog.insertService(service('pets')).catch((error: unknown) => error);
    expect((duplicate as { code?: unknown }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    await store.close();
  });

  it('leaves the schema alone with migrate: false', async () => {
    const db = database();
    const store = await createStore({ db, dialect: sqliteDialect, migrate: false });
    expect(await tableNames(db)).toEqual([]);
    await store.close();
  });

  it('destroys the database when a migration fails, naming the migration', async () => {
    const db = database();
    const dialect: StoreDialect = {
      ...sqliteDialect,
      migrations: {
        '0001-broken': {
          up: async (broken) => {
            await sql`create tabel x (y)`.execute(broken);
          },
        },
      },
    };
    await expect(createStore({ db, dialect })).rejects.toThrow(/database migration 0001-broken failed/);
    await expect(sql`select 1`.execute(db)).rejects.toThrow();
  });
});
