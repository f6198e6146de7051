import type { KeyRow, KeyStorage } from '@cyrnel/core';
import type { KeyPolicy, KeyRole, KeyScope } from '@cyrnel/sdk/api';
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { Database } from './database';
import type { ApiKeysTable } from './key-tables';
import { createPrincipalRows, principalValues } from './principal-rows';
import type { StoreDialectName } from './store-dialect';

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
 * A deletion that keeps an admin (`keepAnAdmin`) counts the admin keys and deletes in one
 * transaction; on PostgreSQL it first locks every admin key row (`FOR UPDATE`, in id order, so
 * two such deletions never deadlock), so of two hosts deleting the last two admin keys at once
 * the second finds the first one's deletion and is refused. SQLite has one writer at a time.
 *
 * @example
 * ```ts
 * const keys = createKeyRing({ storage: createKeyStore(db, 'sqlite') });
 * ```
 */
export function createKeyStore(db: Kysely<Database>, dialect: StoreDialectName): KeyStorage {
  let compiledCount: CompiledQuery<{ count: number | string | bigint }> | undefined;
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

    async count(filter) {
      const all = () => db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('count'));
      if (filter?.role !== undefined) {
        const row = await all().where('role', '=', filter.role).executeTakeFirstOrThrow();
        return Number(row.count);
      }
      // An open server asks on every request (has the first key been stored?): compiled once.
      compiledCount ??= all().compile();
      const { rows } = await db.executeQuery(compiledCount);
      return Number(rows[0]?.count ?? 0);
    },

    async touch(id, at) {
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
    },

    async delete(id, options) {
      if (!options?.keepAnAdmin) {
        const result = await db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0 ? 'deleted' : 'not_found';
      }
      // Any key but an admin key goes at once.
      const other = await db
        .deleteFrom('api_keys')
        .where('id', '=', id)
        .where('role', '<>', 'admin')
        .executeTakeFirst();
      if (Number(other.numDeletedRows) > 0) return 'deleted';
      return db.transaction().execute(async (trx) => {
        let admins = trx.selectFrom('api_keys').select('id').where('role', '=', 'admin').orderBy('id');
        // A deletion that got here first and committed drops out of what this one locks.
        if (dialect === 'postgres') admins = admins.forUpdate();
        const ids = (await admins.execute()).map((row) => row.id);
        // Not an admin key and not deleted above (a key's role never changes): there is none.
        if (!ids.includes(id)) return 'not_found';
        if (ids.length <= 1) return 'last_admin';
        await trx.deleteFrom('api_keys').where('id', '=', id).execute();
        return 'deleted';
      });
    },

    ...createPrincipalRows(db),
  };
}
