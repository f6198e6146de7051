import type { SearchTerm } from '@cyrnel/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './database';
import { ftsMatch, hasPrefix, type MatchMode, type MatchOptions } from './fts-match';

/**
 * At most this many matches are ranked with bm25. bm25 reads the whole index entry of every query
 * word, so a word in most of 100,000 tools would hold the main thread for tens of milliseconds:
 * past the cap each tier orders its first matches (in index order) by id length instead.
 */
export const RANKED_CANDIDATES = 1_000;

/** At most this many ids and as many names holding every word are ordered by the title step. */
export const TITLE_CANDIDATES = 250;

// bm25 weights, in column order: id, name, keywords, description, service.
const WEIGHTS = sql.raw('3.0, 2.0, 1.0, 0.5, 0.5');

// Longer than any id or name: a field that does not hold every word.
const NO_LENGTH = 1_000_000;

/** Search ids of the tools searched: all, or one service's contiguous range. */
export interface Range {
  readonly lo: number;
  readonly hi: number;
}

/** Every search id. */
export const EVERYTHING: Range = { lo: 0, hi: Number.MAX_SAFE_INTEGER };

/** A step of a search after the title step: where every (or any) word must be; bm25 orders it. */
export interface Tier extends MatchOptions {
  readonly mode: MatchMode;
}

/**
 * After the title step: every word in the id or name, then anywhere, then the same with the last
 * word as a prefix (a prefix reads the index of every word it starts, so only when whole words
 * were too few), then any word anywhere.
 */
export const TIERS: readonly Tier[] = [
  { mode: 'all', columns: ['id', 'name'] },
  { mode: 'all' },
  { mode: 'all', prefix: true },
  { mode: 'any', prefix: true },
];

/** How many tools match, counting no further than `upTo`. */
async function countUpTo(db: Kysely<Database>, match: string, range: Range, upTo: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from (
    select rowid from tool_search where tool_search match ${match}
      and rowid between ${range.lo} and ${range.hi} limit ${upTo})`.execute(db);
  return rows[0]?.n ?? 0;
}

/**
 * Search ids of the title step, at most `limit` callable tools: tools whose id holds every word,
 * or whose name does, the shortest such field first (`issues_create` for "create issue",
 * `pulls_merge`, named "Merge a pull request", for "merge pull request"). No bm25: lengths order
 * it. The cross joins keep SQLite from driving the join from the (many) tools instead of the
 * matches.
 */
export async function titleIds(
  db: Kysely<Database>,
  terms: readonly SearchTerm[],
  range: Range,
  filter: RawBuilder<unknown>,
  limit: number,
): Promise<number[]> {
  const inId = ftsMatch(terms, 'all', { columns: ['id'] });
  const inName = ftsMatch(terms, 'all', { columns: ['name'] });
  const { rows } = await sql<{ search_id: number }>`select m.rowid as search_id from (
      select rowid, max(in_id) as in_id, max(in_name) as in_name from (
        select * from (select rowid, 1 as in_id, 0 as in_name from tool_search
          where tool_search match ${inId} and rowid between ${range.lo} and ${range.hi} limit ${TITLE_CANDIDATES})
        union all
        select * from (select rowid, 0 as in_id, 1 as in_name from tool_search
          where tool_search match ${inName} and rowid between ${range.lo} and ${range.hi} limit ${TITLE_CANDIDATES})
      ) group by rowid
    ) m
    cross join tools t on t.search_id = m.rowid
    cross join services s on s.id = t.service_id
    where ${filter}
    order by min(iif(m.in_id, t.id_words, ${NO_LENGTH}), iif(m.in_name, t.name_words, ${NO_LENGTH})),
      t.id_words + t.name_words, t.service_id, t.id
    limit ${limit}`.execute(db);
  return rows.map((row) => row.search_id);
}

/** The tiers that can add something for these terms, widest last. */
function tiersFor(terms: readonly SearchTerm[]): Tier[] {
  return TIERS.filter(
    (tier) =>
      !(tier.prefix && !hasPrefix(terms) && tier.mode === 'all') &&
      !(tier.mode === 'any' && terms.length === 1),
  );
}

/**
 * Search ids of every tier after the title step, at most `limit` callable tools, tier by tier.
 * When the widest tier's matches are within the cap, one statement ranks them all: bm25 reads the
 * index entries of the words once, not once per tier. Past the cap, tier by tier, each capped.
 */
export async function tierIdsAll(
  db: Kysely<Database>,
  terms: readonly SearchTerm[],
  range: Range,
  filter: RawBuilder<unknown>,
  limit: number,
): Promise<number[]> {
  const tiers = tiersFor(terms);
  const widest = tiers[tiers.length - 1] as Tier;
  const match = ftsMatch(terms, widest.mode, widest);
  const matches = await countUpTo(db, match, range, RANKED_CANDIDATES + 1);
  if (matches === 0) return [];
  if (matches > RANKED_CANDIDATES) {
    const found: number[] = [];
    for (const tier of tiers) {
      if (found.length >= limit) break;
      for (const id of await tierIds(db, tier, terms, range, filter, limit)) {
        if (!found.includes(id)) found.push(id);
      }
    }
    return found.slice(0, limit);
  }
  const inTier = (tier: Tier) => sql`m.rowid in (select rowid from tool_search
    where tool_search match ${ftsMatch(terms, tier.mode, tier)} and rowid between ${range.lo} and ${range.hi})`;
  const narrower = tiers.slice(0, -1);
  const tierOf =
    narrower.length === 0
      ? sql`0`
      : sql`case ${sql.join(
          narrower.map((tier, i) => sql`when ${inTier(tier)} then ${i}`),
          sql` `,
        )} else ${narrower.length} end`;
  const { rows } = await sql<{ search_id: number }>`select m.rowid as search_id from (
      select rowid, bm25(tool_search, ${WEIGHTS}) as score from tool_search
      where tool_search match ${match} and rowid between ${range.lo} and ${range.hi}
    ) m
    cross join tools t on t.search_id = m.rowid
    cross join services s on s.id = t.service_id
    where ${filter}
    order by ${tierOf}, m.score, t.service_id, t.id
    limit ${limit}`.execute(db);
  return rows.map((row) => row.search_id);
}

/**
 * Search ids of one tier, best first, at most `limit` callable tools: by bm25, or, past the cap,
 * the first capped matches by id length.
 */
async function tierIds(
  db: Kysely<Database>,
  tier: Tier,
  terms: readonly SearchTerm[],
  range: Range,
  filter: RawBuilder<unknown>,
  limit: number,
): Promise<number[]> {
  const match = ftsMatch(terms, tier.mode, tier);
  const matches = await countUpTo(db, match, range, RANKED_CANDIDATES + 1);
  if (matches === 0) return [];
  const capped = matches > RANKED_CANDIDATES;
  const score = capped ? sql`0` : sql`bm25(tool_search, ${WEIGHTS})`;
  const { rows } = await sql<{ search_id: number }>`select m.rowid as search_id from (
      select rowid, ${score} as score from tool_search
      where tool_search match ${match} and rowid between ${range.lo} and ${range.hi}
      limit ${RANKED_CANDIDATES}
    ) m
    cross join tools t on t.search_id = m.rowid
    cross join services s on s.id = t.service_id
    where ${filter}
    order by ${capped ? sql`t.id_words` : sql`m.score`}, t.service_id, t.id
    limit ${limit}`.execute(db);
  return rows.map((row) => row.search_id);
}
