import type { KeyRow, KeyStorage } from '@cyrnel/core';
import type { KeyPolicy, KeyRole, KeyScope } from '@cyrnel/sdk/api';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from './database';
import type { ApiKeysTable } from './key-tables';
import { createPrincipalRows, principalValues } from './principal-rows';

function toRow(row: Selectable<ApiKeysTable>): KeyRow {
  return {
    id: row.id,
    name: row.name,
    // Every key has one since migration 0017 (the column is nullable on SQLite only).
    principalId: row.principal_id ?? '',
    role: row.role as KeyRole,
    hash: row.hash,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    scope: row.scope === null ? null : (JSON.parse(row.scope) as KeyScope),
    policy: row.policy === null ? null : (JSON.parse(row.policy) as KeyPolicy),
  };
}

/**
 * The key ring's storage port (`KeyStorage` of `@cyrnel/core`) over the `api_keys` table of
 * migrations 0003, 0016 (scope and policy as JSON) and 0017 (the principal), and the `principals`
 * table. Lookups go through the unique index on `hash`, or the primary key.
 *
 * @example
 * ```ts
 * const keys = createKeyRing({ storage: createKeyStore(db) });
 * ```
 */
export function createKeyStore(db: Kysely<Database>): KeyStorage {
  return {
    async insert(row, principal) {
      const values = {
        id: row.id,
        name: row.name,
        principal_id: row.principalId,
        role: row.role,
        hash: row.hash,
        prefix: row.prefix,
        created_at: row.createdAt,
        last_used_at: row.lastUsedAt,
        scope: row.scope === null ? null : JSON.stringify(row.scope),
        policy: row.policy === null ? null : JSON.stringify(row.policy),
      };
      if (!principal) {
        await db.insertInto('api_keys').values(values).execute();
        return;
      }
      // The key and its own principal: both rows, or neither.
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('principals').values(principalValues(principal)).execute();
        await trx.insertInto('api_keys').values(values).execute();
      });
    },

    async findByHash(hash) {
      const row = await db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
      return row && toRow(row);
    },

    async get(id) {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRow(row);
    },

    async list({ after, limit }) {
      let query = db.selectFrom('api_keys').selectAll();
      if (after) {
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '>', after.createdAt),
            eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
          ]),
        );
      }
      const rows = await query.orderBy('created_at').orderBy('id').limit(limit).execute();
      return rows.map(toRow);
    },

    async count() {
      const row = await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async touch(id, at) {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },

    async delete(id) {
      const result = await db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    ...createPrincipalRows(db),
  };
}
