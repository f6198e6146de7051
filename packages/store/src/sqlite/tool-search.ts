import { type CatalogStorage, parseSearch, type ToolRow, type ToolSearchQuery } from '@cyrnel/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../database';
import { type ToolBase, toToolRow } from '../tool-rows';
import { EVERYTHING, type Range, tierIdsAll, titleIds } from './tool-search-steps';

const COLUMNS = sql.raw(
  't.service_id as service_id, t.id as id, t.name as name, t.description as description, ' +
    't.enabled as enabled, s.enabled as service_enabled, s.adapter as adapter, ' +
    't.annotations as annotations',
);

/**
 * Tools an agent can call: both flags on, the adapter active, the service not excluded (the host
 * failed to hydrate it), in the service when one is given.
 */
function callable(query: ToolSearchQuery): RawBuilder<unknown> {
  const adapters = JSON.stringify(query.adapters);
  const { serviceId, excludedServices = [] } = query;
  const inService = serviceId === undefined ? sql`` : sql` and t.service_id = ${serviceId}`;
  const excluded =
    excludedServices.length === 0
      ? sql``
      : sql` and s.id not in (select value from json_each(${JSON.stringify(excludedServices)}))`;
  return sql`t.enabled = 1 and s.enabled = 1 and s.adapter in (select value from json_each(${adapters}))${inService}${excluded}`;
}

/** The answered tools of some search ids, in their order: texts are read for these only. */
async function toolsOf(db: Kysely<Database>, ids: readonly number[]): Promise<ToolRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<ToolBase & { search_id: number }>`
    select ${COLUMNS}, t.search_id as search_id from tools t join services s on s.id = t.service_id
    where t.search_id in (select value from json_each(${JSON.stringify(ids)}))`.execute(db);
  const bySearchId = new Map(rows.map((row) => [row.search_id, row]));
  return ids.flatMap((id) => {
    const row = bySearchId.get(id);
    return row ? [toToolRow(row)] : [];
  });
}

/** The search ids of a service's tools (one contiguous range), or undefined when it has none. */
async function serviceRange(db: Kysely<Database>, serviceId: string): Promise<Range | undefined> {
  const { rows } = await sql<{ lo: number | null; hi: number | null }>`
    select min(search_id) as lo, max(search_id) as hi from tools where service_id = ${serviceId}`.execute(db);
  const { lo, hi } = rows[0] ?? { lo: null, hi: null };
  return lo === null || hi === null ? undefined : { lo, hi };
}

async function search(db: Kysely<Database>, query: ToolSearchQuery): Promise<ToolRow[]> {
  const limit = Math.max(0, Math.floor(query.limit));
  if (limit === 0) return [];
  if (query.text.trim() === '') {
    const { rows } = await sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
      where ${callable(query)} order by t.service_id, t.id limit ${limit}`.execute(db);
    return rows.map(toToolRow);
  }
  const { exact, terms } = parseSearch(query.text);
  // A qualified id (`github.issues_create`) keeps the words to its service.
  const filter = callable(query);
  const scoped =
    exact?.serviceId === undefined ? filter : sql`${filter} and t.service_id = ${exact.serviceId}`;
  // Search ids in answer order; each step asks for as many more as were found before it, since
  // those come again.
  const found = new Set<number>();
  const add = (ids: readonly number[]) => {
    for (const id of ids) if (found.size < limit) found.add(id);
  };
  if (exact) {
    const { rows } = await sql<{ search_id: number }>`select t.search_id as search_id
      from tools t join services s on s.id = t.service_id
      where t.id = ${exact.toolId} collate nocase and ${scoped}
      order by t.service_id, t.id limit ${limit}`.execute(db);
    add(rows.map((row) => row.search_id));
  }
  if (terms.length === 0 || found.size >= limit) return toolsOf(db, [...found]);
  const serviceId = query.serviceId ?? exact?.serviceId;
  const range = serviceId === undefined ? EVERYTHING : await serviceRange(db, serviceId);
  if (range === undefined) return toolsOf(db, [...found]);
  add(await titleIds(db, terms, range, scoped, limit + found.size));
  if (found.size < limit) add(await tierIdsAll(db, terms, range, scoped, limit + found.size));
  return toolsOf(db, [...found]);
}

/**
 * `CatalogStorage.searchTools` on SQLite FTS5 (the `tool_search` table of migration 0004). One
 * connection for all of a search's statements: taken once, not once per statement.
 */
export function createToolSearch(db: Kysely<Database>): CatalogStorage['searchTools'] {
  return (query) => db.connection().execute((connection) => search(connection, query));
}
