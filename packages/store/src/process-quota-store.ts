import type { ProcessQuotaStorage, PruneRule } from '@cyrnel/core';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from './database';
import type { StoreDialectName } from './store-dialect';

type Candidates = SelectQueryBuilder<Database, 'processes', { id: number }>;

/** Which candidates of a batch are still prunable once their rows are locked. */
type Recheck = (query: Candidates) => Candidates;

/**
 * The quota and retention part of the process store (`ProcessQuotaStorage` of `@cyrnel/core`)
 * over `key_usage` (migration 0014), whose totals triggers keep on every write.
 *
 * Pruning deletes one key's processes per transaction: on PostgreSQL it locks that key's total
 * first and its process rows next (`FOR UPDATE SKIP LOCKED`), the order every other writer of a
 * key's rows takes (a delete or the end of a run changes the total while holding its process
 * row at most), so hosts pruning at once, and pruning beside the API, never deadlock; a row
 * another host is deleting is skipped, and one deleted already is simply gone.
 *
 * @example
 * ```ts
 * const quota = createProcessQuotaStore(db, 'sqlite');
 * await quota.pruneIdle({ idleBefore: '2026-01-01T00:00:00.000Z', limit: 100 });
 * ```
 */
export function createProcessQuotaStore(
  db: Kysely<Database>,
  dialect: StoreDialectName,
): ProcessQuotaStorage {
  const postgres = dialect === 'postgres';

  /** Delete the processes `ids` of `keyId` that `recheck` still finds, with their calls. */
  const deleteGroup = (keyId: string | null, ids: readonly number[], recheck: Recheck) =>
    db.transaction().execute(async (trx) => {
      if (postgres && keyId !== null) {
        await trx.selectFrom('key_usage').select('key_id').where('key_id', '=', keyId).forUpdate().execute();
      }
      let query = recheck(trx.selectFrom('processes').select('id').where('id', 'in', ids));
      if (postgres) query = query.forUpdate().skipLocked();
      const locked = (await query.execute()).map((row) => Number(row.id));
      if (locked.length === 0) return 0;
      // Calls first: their trigger finds the key through the process row.
      await trx.deleteFrom('process_tool_calls').where('process_id', 'in', locked).execute();
      const result = await trx.deleteFrom('processes').where('id', 'in', locked).executeTakeFirst();
      return Number(result.numDeletedRows);
    });

  /** Delete `rows` (ids with their keys) one key at a time; answers how many went. */
  const deleteByKey = async (rows: readonly { id: number; key_id: string | null }[], recheck: Recheck) => {
    const groups = new Map<string | null, number[]>();
    for (const row of rows) {
      const group = groups.get(row.key_id) ?? [];
      group.push(Number(row.id));
      groups.set(row.key_id, group);
    }
    let deleted = 0;
    for (const [keyId, ids] of groups) deleted += await deleteGroup(keyId, ids, recheck);
    return deleted;
  };

  const pruneOld = async (idleBefore: string, limit: number) => {
    const rows = await db
      .selectFrom('processes')
      .select(['id', 'key_id'])
      .where('state', '=', 'idle')
      .where('updated_at', '<', idleBefore)
      .orderBy('updated_at')
      .limit(limit)
      .execute();
    return deleteByKey(rows, (query) =>
      query.where('state', '=', 'idle').where('updated_at', '<', idleBefore),
    );
  };

  const pruneBeyond = async (keepPerKey: number, limit: number) => {
    const keys = await db
      .selectFrom('key_usage')
      .select('key_id')
      .where('processes', '>', keepPerKey)
      .orderBy('key_id')
      .execute();
    let deleted = 0;
    for (const { key_id: keyId } of keys) {
      if (deleted >= limit) break;
      // The newest process past the kept ones: it and every older idle one may go.
      const edge = await db
        .selectFrom('processes')
        .select('id')
        .where('key_id', '=', keyId)
        .orderBy('id', 'desc')
        .limit(1)
        .offset(keepPerKey)
        .executeTakeFirst();
      if (!edge) continue;
      const ids = await db
        .selectFrom('processes')
        .select('id')
        .where('key_id', '=', keyId)
        .where('id', '<=', Number(edge.id))
        .where('state', '=', 'idle')
        .orderBy('id')
        .limit(limit - deleted)
        .execute();
      if (ids.length === 0) continue;
      deleted += await deleteGroup(
        keyId,
        ids.map((row) => Number(row.id)),
        (query) => query.where('state', '=', 'idle'),
      );
    }
    return deleted;
  };

  return {
    async keyUsage(keyId) {
      const row = await db
        .selectFrom('key_usage')
        .select(['stored_bytes', 'processes'])
        .where('key_id', '=', keyId)
        .executeTakeFirst();
      return { storedBytes: Number(row?.stored_bytes ?? 0), processes: Number(row?.processes ?? 0) };
    },
    async pruneIdle({ idleBefore, keepPerKey, limit }: PruneRule) {
      if (limit <= 0) return 0;
      let deleted = idleBefore === undefined ? 0 : await pruneOld(idleBefore, limit);
      if (keepPerKey !== undefined && deleted < limit)
        deleted += await pruneBeyond(keepPerKey, limit - deleted);
      return deleted;
    },
  };
}
