export { createCatalogStore } from './catalog-store';
export { createKeyStore } from './key-store';
export { type OpenStoreOptions, openStore, type Store } from './open-store';
export { createProcessStore } from './process-store';
export { runMigrations } from './run-migrations';
