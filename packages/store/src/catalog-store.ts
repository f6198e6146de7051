import type { CatalogStorage } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import type { Database } from './database';
import { createModuleRows } from './module-rows';
import { createServiceRows } from './service-rows';
import { createToolRows } from './tool-rows';
import { createToolSearch } from './tool-search';

/** The `CatalogStorage` port of `@cyrnel/core` on a Kysely database. */
export function createCatalogStore(db: Kysely<Database>): CatalogStorage {
  return {
    ...createModuleRows(db),
    ...createServiceRows(db),
    ...createToolRows(db),
    searchTools: createToolSearch(db),
  };
}
