import { type CatalogStorage, parseSearch, type ToolRow, type ToolSearchQuery } from '@cyrnel/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../database';
import { type ToolBase, toToolRow } from '../tool-rows';

const COLUMNS = sql.raw(
  't.service_id as service_id, t.id as id, t.name as name, t.description as description, ' +
    't.enabled as enabled, s.enabled as service_enabled, s.adapter as adapter',
);

/** Matches ranked with `ts_rank` at most (as `RANKED_CANDIDATES` on SQLite). */
const RANKED_CANDIDATES = 1_000;
/** Matches ordered by id length past {@link RANKED_CANDIDATES}. */
const TITLE_CANDIDATES = 250;

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

/** A term as a prefix query of its word (letters and digits only: nothing of tsquery's syntax). */
function prefix(word: string): string | undefined {
  const clean = word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return clean === '' ? undefined : `${clean}:*`;
}

/**
 * `CatalogStorage.searchTools` on PostgreSQL: the exact id first (`issues_create`,
 * `github.issues_create`, case-insensitive), then every tool whose document holds all the words
 * as prefixes, by `ts_rank` (id words weigh most), then service and id.
 */
export function createToolSearch(db: Kysely<Database>): CatalogStorage['searchTools'] {
  // The planner needs statistics of `tools` to use the GIN index: without them (a fresh database,
  // or one grown by bulk installs since autovacuum last looked) it scans every tool of every
  // service (≈ 30 ms at 10k tools instead of ≈ 3). Checked at most every STATS_CHECK_MS.
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
    const filter = callable(query);
    if (query.text.trim() === '') {
      const { rows } =
        await sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
        where ${filter} order by t.service_id, t.id limit ${limit}`.execute(db);
      return rows.map(toToolRow);
    }
    const { exact, terms } = parseSearch(query.text);
    const found: ToolRow[] = [];
    const seen = new Set<string>();
    if (exact) {
      const scoped = exact.serviceId === undefined ? sql`` : sql` and t.service_id = ${exact.serviceId}`;
      const { rows } =
        await sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
        where ${filter}${scoped} and lower(t.id) = lower(${exact.toolId})
        order by t.service_id, t.id limit ${limit}`.execute(db);
      for (const row of rows) {
        found.push(toToolRow(row));
        seen.add(`${row.service_id}.${row.id}`);
      }
    }
    const words = terms.map((term) => prefix(term.word)).filter((word): word is string => word !== undefined);
    if (found.length < limit && words.length > 0) {
      const scoped = exact?.serviceId === undefined ? sql`` : sql` and t.service_id = ${exact.serviceId}`;
      const tsquery = words.join(' & ');
      const matching = sql`from tools t join services s on s.id = t.service_id
        where ${filter}${scoped} and t.search_document @@ to_tsquery('simple', ${tsquery})`;
      // `ts_rank` scores every match: a word in most of 100,000 tools costs tens of milliseconds.
      // Past RANKED_CANDIDATES matches (the planner's estimate, from fresh statistics: counting
      // them costs as much as ranking), as on SQLite, the first TITLE_CANDIDATES found are ordered
      // by id length instead (the shortest ids are the most general tools).
      const { rows: plans } = await sql<{
        'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }];
      }>`explain (format json)
        select 1 from tools t where t.search_document @@ to_tsquery('simple', ${tsquery})`.execute(db);
      const estimate = plans[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0;
      const broad = estimate > RANKED_CANDIDATES;
      const { rows } = broad
        ? await sql<ToolBase>`select * from (select ${COLUMNS} ${matching} limit ${TITLE_CANDIDATES}) as m
            order by length(m.id), m.service_id, m.id limit ${limit + found.length}`.execute(db)
        : await sql<ToolBase>`select ${COLUMNS} ${matching}
            order by ts_rank(t.search_document, to_tsquery('simple', ${tsquery})) desc, t.service_id, t.id
            limit ${limit + found.length}`.execute(db);
      for (const row of rows) {
        if (found.length >= limit) break;
        if (seen.has(`${row.service_id}.${row.id}`)) continue;
        found.push(toToolRow(row));
      }
    }
    return found;
  };
}
