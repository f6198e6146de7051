import { type CatalogStorage, parseSearch, type SearchTerm, type ToolRow } from '@cyrnel/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './database';
import { ftsMatch, hasPrefix, type MatchMode, type MatchOptions } from './fts-match';
import { type ToolBase, toToolRow } from './tool-rows';

/**
 * At most this many matches are ranked per tier. bm25 reads the whole index entry of every query
 * word, so a word in most of 100,000 tools would hold the main thread for tens of milliseconds:
 * past the cap a tier ranks its first matches (in index order) by id length instead.
 */
export const RANKED_CANDIDATES = 1_000;

// bm25 weights, in column order: id, name, keywords, description, service.
const WEIGHTS = sql.raw('3.0, 2.0, 1.0, 0.5, 0.5');

/** A step of a search after the title step: where every (or any) word must be; bm25 orders it. */
interface Tier extends MatchOptions {
  readonly mode: MatchMode;
}

// After the title step (every word in the id, or in the name): every word in the id or name, then
// anywhere, then the same with the last word as a prefix (a prefix reads the index of every word
// it starts, so only when whole words were too few), then any word anywhere.
const TIERS: readonly Tier[] = [
  { mode: 'all', columns: ['id', 'name'] },
  { mode: 'all' },
  { mode: 'all', prefix: true },
  { mode: 'any', prefix: true },
];

// Longer than any id or name: a field that does not hold every word.
const NO_LENGTH = 1_000_000;

/** Search ids of the tools searched: all, or one service's contiguous range. */
interface Range {
  readonly lo: number;
  readonly hi: number;
}
const EVERYTHING: Range = { lo: 0, hi: Number.MAX_SAFE_INTEGER };

const COLUMNS = sql.raw(
  't.service_id as service_id, t.id as id, t.name as name, t.description as description, ' +
    't.enabled as enabled, s.enabled as service_enabled, s.adapter as adapter',
);

/** Tools an agent can call: both flags on, the adapter active, in the service when one is given. */
function callable(adapters: string, serviceId: string | undefined): RawBuilder<unknown> {
  const inService = serviceId === undefined ? sql`` : sql` and t.service_id = ${serviceId}`;
  return sql`t.enabled = 1 and s.enabled = 1 and s.adapter in (select value from json_each(${adapters}))${inService}`;
}

/** `CatalogStorage.searchTools` on SQLite FTS5 (the `tool_search` table of migration 0004). */
export function createToolSearch(db: Kysely<Database>): CatalogStorage['searchTools'] {
  const rows = async (query: RawBuilder<ToolBase>) => (await query.execute(db)).rows.map(toToolRow);

  /** How many tools match, counting no further than `upTo`. */
  const countUpTo = async (match: string, range: Range, upTo: number) => {
    const { rows: counted } = await sql<{ n: number }>`select count(*) as n from (
      select rowid from tool_search where tool_search match ${match}
        and rowid between ${range.lo} and ${range.hi} limit ${upTo})`.execute(db);
    return counted[0]?.n ?? 0;
  };

  /**
   * Search ids of the title step: tools whose id holds every word, or whose name does, the
   * shortest such field first (`issues_create` for "create issue", `pulls_merge` named "Merge a
   * pull request" for "merge pull request"). No bm25: lengths order it, so it costs no more than
   * finding the first capped matches. The cross joins keep SQLite from driving the join from the
   * (many) tools instead of the matches.
   */
  const titleIds = async (
    terms: readonly SearchTerm[],
    range: Range,
    filter: RawBuilder<unknown>,
    limit: number,
  ) => {
    const inId = ftsMatch(terms, 'all', { columns: ['id'] });
    const inName = ftsMatch(terms, 'all', { columns: ['name'] });
    const { rows: ranked } = await sql<{ search_id: number }>`select m.rowid as search_id from (
        select rowid, max(in_id) as in_id, max(in_name) as in_name from (
          select * from (select rowid, 1 as in_id, 0 as in_name from tool_search
            where tool_search match ${inId} and rowid between ${range.lo} and ${range.hi} limit ${RANKED_CANDIDATES})
          union all
          select * from (select rowid, 0 as in_id, 1 as in_name from tool_search
            where tool_search match ${inName} and rowid between ${range.lo} and ${range.hi} limit ${RANKED_CANDIDATES})
        ) group by rowid
      ) m
      cross join tools t on t.search_id = m.rowid
      cross join services s on s.id = t.service_id
      where ${filter}
      order by min(iif(m.in_id, t.id_words, ${NO_LENGTH}), iif(m.in_name, t.name_words, ${NO_LENGTH})),
        t.id_words + t.name_words, t.service_id, t.id
      limit ${limit}`.execute(db);
    return ranked.map((row) => row.search_id);
  };

  /**
   * Search ids of one tier, best first, at most `limit` callable tools: by bm25, or, past the cap,
   * the first capped matches by id length.
   */
  const tierIds = async (
    tier: Tier,
    terms: readonly SearchTerm[],
    range: Range,
    filter: RawBuilder<unknown>,
    limit: number,
  ) => {
    const match = ftsMatch(terms, tier.mode, tier);
    const matches = await countUpTo(match, range, RANKED_CANDIDATES + 1);
    if (matches === 0) return [];
    const capped = matches > RANKED_CANDIDATES;
    const score = capped ? sql`0` : sql`bm25(tool_search, ${WEIGHTS})`;
    const { rows: ranked } = await sql<{ search_id: number }>`select m.rowid as search_id from (
        select rowid, ${score} as score from tool_search
        where tool_search match ${match} and rowid between ${range.lo} and ${range.hi}
        limit ${RANKED_CANDIDATES}
      ) m
      cross join tools t on t.search_id = m.rowid
      cross join services s on s.id = t.service_id
      where ${filter}
      order by ${capped ? sql`t.id_words` : sql`m.score`}, t.service_id, t.id
      limit ${limit}`.execute(db);
    return ranked.map((row) => row.search_id);
  };

  /** The answered tools of some search ids, in their order (texts are read for these only). */
  const toolsOf = async (ids: readonly number[]): Promise<ToolRow[]> => {
    if (ids.length === 0) return [];
    const { rows: found } = await sql<ToolBase & { search_id: number }>`
      select ${COLUMNS}, t.search_id as search_id from tools t join services s on s.id = t.service_id
      where t.search_id in (select value from json_each(${JSON.stringify(ids)}))`.execute(db);
    const bySearchId = new Map(found.map((row) => [row.search_id, row]));
    return ids.flatMap((id) => {
      const row = bySearchId.get(id);
      return row ? [toToolRow(row)] : [];
    });
  };

  /** The search ids of a service's tools (one contiguous range), or undefined when it has none. */
  const serviceRange = async (serviceId: string): Promise<Range | undefined> => {
    const { rows: found } = await sql<{ lo: number | null; hi: number | null }>`
      select min(search_id) as lo, max(search_id) as hi from tools where service_id = ${serviceId}`.execute(
      db,
    );
    const { lo, hi } = found[0] ?? { lo: null, hi: null };
    return lo === null || hi === null ? undefined : { lo, hi };
  };

  return async (query) => {
    const limit = Math.max(0, Math.floor(query.limit));
    const adapters = JSON.stringify(query.adapters);
    if (limit === 0) return [];
    if (query.text.trim() === '') {
      return rows(sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
        where ${callable(adapters, query.serviceId)} order by t.service_id, t.id limit ${limit}`);
    }
    const { exact, terms } = parseSearch(query.text);
    // A qualified id (`github.issues_create`) keeps the words to its service.
    const serviceId = query.serviceId ?? exact?.serviceId;
    const filter = callable(adapters, query.serviceId);
    const scoped =
      exact?.serviceId === undefined ? filter : sql`${filter} and t.service_id = ${exact.serviceId}`;
    const found = new Map<string, ToolRow>();
    const add = (more: readonly ToolRow[]) => {
      for (const row of more) {
        if (found.size >= limit) return;
        const key = `${row.serviceId}\u0000${row.id}`;
        if (!found.has(key)) found.set(key, row);
      }
    };
    if (exact) {
      add(
        await rows(sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
          where t.id = ${exact.toolId} collate nocase and ${scoped}
          order by t.service_id, t.id limit ${limit}`),
      );
    }
    if (terms.length === 0) return [...found.values()];
    const range = serviceId === undefined ? EVERYTHING : await serviceRange(serviceId);
    if (range === undefined) return [...found.values()];
    // Tools found by an earlier step come again: each asks for that many more.
    add(await toolsOf(await titleIds(terms, range, scoped, limit + found.size)));
    for (const tier of TIERS) {
      if (found.size >= limit) break;
      // A prefix of a short word, or "any" of one word, would repeat the tier before.
      if (tier.mode === 'all' && tier.prefix && !hasPrefix(terms)) continue;
      if (tier.mode === 'any' && terms.length === 1) break;
      add(await toolsOf(await tierIds(tier, terms, range, scoped, limit + found.size)));
    }
    return [...found.values()];
  };
}
