import type { CatalogStorage } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import type { Database } from './database';
import { createModuleRows } from './module-rows';
import { createServiceRows } from './service-rows';
import { createSettingsRows } from './settings-rows';
import type { StoreDialect } from './store-dialect';
import { createToolRows } from './tool-rows';

/** The `CatalogStorage` port of `@cyrnel/core` on a Kysely database; search is the dialect's. */
export function createCatalogStore(db: Kysely<Database>, dialect: StoreDialect): CatalogStorage {
  return {
    ...createModuleRows(db),
    ...createServiceRows(db, dialect),
    ...createSettingsRows(db),
    ...createToolRows(db),
    searchTools: dialect.toolSearch.search(db),
  };
}
