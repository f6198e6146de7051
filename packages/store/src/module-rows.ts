import type { CatalogStorage, ModuleRow } from '@cyrnel/core';
import type { ModuleType } from '@cyrnel/sdk';
import type { Kysely, Selectable } from 'kysely';
import type { ModulesTable } from './catalog-tables';
import type { Database } from './database';
import { flag } from './sql-helpers';

function toModuleRow(row: Selectable<ModulesTable>): ModuleRow {
  return {
    id: row.id,
    type: row.type as ModuleType,
    name: row.name,
    description: row.description,
    version: row.version,
    isBuiltin: row.is_builtin === 1,
    enabled: row.enabled === 1,
    missing: row.missing === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

type ModuleMethods = Pick<CatalogStorage, 'listModules' | 'insertModule' | 'updateModule'>;

/** The module half of the catalog port. */
export function createModuleRows(db: Kysely<Database>): ModuleMethods {
  return {
    async listModules() {
      const rows = await db.selectFrom('modules').selectAll().orderBy('id').execute();
      return rows.map(toModuleRow);
    },
    async insertModule(row) {
      await db
        .insertInto('modules')
        .values({
          id: row.id,
          type: row.type,
          name: row.name,
          description: row.description,
          version: row.version,
          is_builtin: flag(row.isBuiltin),
          enabled: flag(row.enabled),
          missing: flag(row.missing),
          created_at: row.createdAt,
          updated_at: row.updatedAt,
        })
        .execute();
    },
    async updateModule(id, change) {
      await db
        .updateTable('modules')
        .set({
          ...(change.type === undefined ? {} : { type: change.type }),
          ...(change.name === undefined ? {} : { name: change.name }),
          ...(change.description === undefined ? {} : { description: change.description }),
          ...(change.version === undefined ? {} : { version: change.version }),
          ...(change.isBuiltin === undefined ? {} : { is_builtin: flag(change.isBuiltin) }),
          ...(change.enabled === undefined ? {} : { enabled: flag(change.enabled) }),
          ...(change.missing === undefined ? {} : { missing: flag(change.missing) }),
          updated_at: change.updatedAt,
        })
        .where('id', '=', id)
        .execute();
    },
  };
}
