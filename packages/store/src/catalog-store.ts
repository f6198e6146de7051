import type { CatalogStorage } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import { createConnectionRows } from './connection-rows';
import type { Database } from './database';
import { createModuleRows } from './module-rows';
import { createObservedOutputRows } from './observed-output-rows';
import { createServicePolicyRows } from './service-policy-rows';
import { createServiceRows } from './service-rows';
import { createSettingsRows } from './settings-rows';
import type { StoreDialect } from './store-dialect';
import { createToolRows } from './tool-rows';

/** The `CatalogStorage` port of `@cyrnel/core` on a Kysely database; search is the dialect's. */
export function createCatalogStore(db: Kysely<Database>, dialect: StoreDialect): CatalogStorage {
  return {
    ...createModuleRows(db),
    ...createServiceRows(db, dialect),
    ...createServicePolicyRows(db),
    ...createSettingsRows(db),
    ...createToolRows(db),
    ...createObservedOutputRows(db),
    ...createConnectionRows(db, dialect),
    searchTools: dialect.toolSearch.search(db),
    async catalogRevision() {
      const row = await db
        .selectFrom('catalog_revision')
        .select('value')
        .where('id', '=', 1)
        .executeTakeFirst();
      return Number(row?.value ?? 0);
    },
    async bumpCatalogRevision() {
      const row = await db
        .updateTable('catalog_revision')
        .set((eb) => ({ value: eb('value', '+', 1) }))
        .where('id', '=', 1)
        .returning('value')
        .executeTakeFirst();
      return Number(row?.value ?? 0);
    },
  };
}
