export { createApprovalStore } from './approval-store';
export { createCatalogStore } from './catalog-store';
export { type CreateStoreOptions, createStore, type Store } from './create-store';
export type { Database } from './database';
export { createKeyStore } from './key-store';
export { createProcessStore } from './process-store';
export { runMigrations } from './run-migrations';
export type {
  DefinitionCodec,
  IndexedService,
  SearchableTool,
  StoreDialect,
  StoreDialectName,
  ToolSearchIndex,
} from './store-dialect';
