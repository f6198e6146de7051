import { type CatalogStorage, parseSearch, type ToolSearchQuery } from '@cyrnel/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../database';
import { type ToolBase, toToolRow } from '../tool-rows';

const COLUMNS = sql.raw(
  't.service_id as service_id, t.id as id, t.name as name, t.description as description, ' +
    't.enabled as enabled, s.enabled as service_enabled, s.adapter as adapter, ' +
    't.annotations as annotations',
);

/** How often a search looks whether the statistics of `tools` are behind its writes. */
const STATS_CHECK_MS = 5_000;

/** Tools an agent can call (as on SQLite): both flags on, the adapter active, not excluded. */
function callable(query: ToolSearchQuery): RawBuilder<unknown> {
  const { serviceId, excludedServices = [] } = query;
  const inService = serviceId === undefined ? sql`` : sql` and t.service_id = ${serviceId}`;
  const excluded =
    excludedServices.length === 0 ? sql`` : sql` and not (s.id = any(${[...excludedServices]}::text[]))`;
  return sql`t.enabled = 1 and s.enabled = 1 and s.adapter = any(${[...query.adapters]}::text[])${inService}${excluded}`;
}

/** A term as the word it is indexed under: letters and digits only, nothing of tsquery's syntax. */
function indexedWord(word: string): string | undefined {
  const clean = word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return clean === '' ? undefined : clean;
}

/**
 * A search with words or an id, as one call of `search_tools` (migration 0012). A qualified id
 * (`github.issues_create`) keeps the search to its service, as `serviceId` does; both, naming
 * two services, find nothing.
 */
function searchCall(query: ToolSearchQuery, limit: number): RawBuilder<ToolBase> | undefined {
  const { exact, terms } = parseSearch(query.text);
  // A camelCase word by its parts, which the documents hold too (`listIssues` → list, issues):
  // `listCommits` then finds `repos/list-commits`, as on SQLite.
  const words = [
    ...new Set(
      terms
        .flatMap((term) => (term.parts.length > 0 ? term.parts : [term.word]))
        .map(indexedWord)
        .filter((word): word is string => word !== undefined),
    ),
  ];
  if (exact === undefined && words.length === 0) return undefined;
  const scope = query.serviceId ?? exact?.serviceId;
  if (exact?.serviceId !== undefined && exact.serviceId !== scope) return undefined;
  // The function answers the columns of migration 0012; the annotations come from the rows it
  // found (by primary key), in its order.
  return sql<ToolBase>`select r.service_id, r.id, r.name, r.description, r.enabled, r.service_enabled,
      r.adapter, t.annotations
    from search_tools(${[...query.adapters]}::text[], ${[...(query.excludedServices ?? [])]}::text[],
      ${scope ?? null}::text, ${exact?.toolId ?? null}::text, ${words}::text[], ${limit}::integer)
      with ordinality as r(service_id, id, name, description, enabled, service_enabled, adapter, n)
    join tools t on t.service_id = r.service_id and t.id = r.id
    order by r.n`;
}

/**
 * `CatalogStorage.searchTools` on PostgreSQL: the exact id first (`issues_create`,
 * `github.issues_create`, case-insensitive), then every tool whose document holds all the words
 * as prefixes, by `ts_rank` (id words weigh most), then service and id: `search_tools`.
 */
export function createToolSearch(db: Kysely<Database>): CatalogStorage['searchTools'] {
  // Search reads the planner's count of tools, and the planner needs statistics of `tools` to
  // use its indexes: without them (a fresh database, or one grown by bulk installs since
  // autovacuum last looked) it may scan every tool of every service. Checked at most every
  // STATS_CHECK_MS.
  let checkedAt = Number.NEGATIVE_INFINITY;
  const freshStatistics = async () => {
    if (performance.now() - checkedAt < STATS_CHECK_MS) return;
    checkedAt = performance.now();
    const { rows } = await sql<{ changed: string | number | null; live: string | number | null }>`
      select n_mod_since_analyze as changed, n_live_tup as live from pg_stat_user_tables
      where relid = to_regclass('tools')`.execute(db);
    const stats = rows[0];
    if (stats && Number(stats.changed ?? 0) > 100 + 0.2 * Number(stats.live ?? 0)) {
      await sql`analyze tools, services`.execute(db);
    }
  };
  return async (query) => {
    const limit = Math.max(0, Math.floor(query.limit));
    if (limit === 0) return [];
    await freshStatistics();
    if (query.text.trim() === '') {
      const { rows } =
        await sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
        where ${callable(query)} order by t.service_id, t.id limit ${limit}`.execute(db);
      return rows.map(toToolRow);
    }
    const call = searchCall(query, limit);
    if (call === undefined) return [];
    const { rows } = await call.execute(db);
    return rows.map(toToolRow);
  };
}
