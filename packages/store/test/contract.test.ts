import { runCatalogStorageContract, runProcessStorageContract } from '@cyrnel/core/testing';
import { openTempSqliteStore } from './support/temp-dirs';

/** A store on a real SQLite file in a fresh directory, removed on close. */
const sqliteStore = () => openTempSqliteStore('contract');

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
