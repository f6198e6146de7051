import { type QueryExecutorProvider, sql } from 'kysely';

/**
 * The first search id of a new contiguous range: one past the largest in use. Every service's
 * tools take one range, so a search within a service is a range of ids in any dialect's index.
 */
export async function nextSearchId(db: QueryExecutorProvider): Promise<number> {
  const { rows } = await sql<{ top: number | null }>`select max(search_id) as top from tools`.execute(db);
  return Number(rows[0]?.top ?? 0) + 1;
}
