import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCatalogStorageContract, runProcessStorageContract } from '@cyrnel/core/testing';
import { openSqliteStore } from '../src/sqlite/index';

/** A store on a real SQLite file in a fresh directory, removed on close. */
async function sqliteStore() {
  const dir = await mkdtemp(join(tmpdir(), 'cyrnel-contract-'));
  const store = await openSqliteStore({ filename: join(dir, 'data.db') });
  return {
    store,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

runCatalogStorageContract({
  name: 'sqlite',
  async create() {
    const { store, close } = await sqliteStore();
    return { storage: store.catalog, close };
  },
});

runProcessStorageContract({
  name: 'sqlite',
  async create() {
    const { store, close } = await sqliteStore();
    return { storage: store.processes, close };
  },
});
