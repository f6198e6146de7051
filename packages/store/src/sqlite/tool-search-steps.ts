import type { SearchTerm } from '@cyrnel/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../database';
import { ftsMatch, hasPrefix, type MatchMode, type MatchOptions } from './fts-match';

/**
 * At most this many matches are ranked with bm25. bm25 reads the whole index entry of every query
 * word, so a word in most of 100,000 tools would hold the main thread for tens of milliseconds:
 * past the cap each tier orders its first {@link TITLE_CANDIDATES} matches (in index order) by id
 * length instead.
 */
export const RANKED_CANDIDATES = 1_000;

/**
 * At most this many ids and as many names holding every word are ordered by the title step, and
 * at most this many of a tier past {@link RANKED_CANDIDATES} are ordered by id length.
 */
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
 * Search ids of the tiers of `group` (narrowest first) in one statement: bm25 over the widest
 * one's matches (at most {@link RANKED_CANDIDATES}), each match in the first tier that holds it.
 * bm25 reads the index entries of the words once, not once per tier.
 */
async function rankedTogether(
  db: Kysely<Database>,
  group: readonly Tier[],
  terms: readonly SearchTerm[],
  range: Range,
  filter: RawBuilder<unknown>,
  limit: number,
): Promise<number[]> {
  const widest = group[group.length - 1] as Tier;
  const inTier = (tier: Tier) => sql`m.rowid in (select rowid from tool_search
    where tool_search match ${ftsMatch(terms, tier.mode, tier)} and rowid between ${range.lo} and ${range.hi})`;
  const narrower = group.slice(0, -1);
  const tierOf =
    narrower.length === 0
      ? sql`0`
      : sql`case ${sql.join(
          narrower.map((tier, i) => sql`when ${inTier(tier)} then ${i}`),
          sql` `,
        )} else ${narrower.length} end`;
  const { rows } = await sql<{ search_id: number }>`select m.rowid as search_id from (
      select rowid, bm25(tool_search, ${WEIGHTS}) as score from tool_search
      where tool_search match ${ftsMatch(terms, widest.mode, widest)}
        and rowid between ${range.lo} and ${range.hi}
    ) m
    cross join tools t on t.search_id = m.rowid
    cross join services s on s.id = t.service_id
    where ${filter}
    order by ${tierOf}, m.score, t.service_id, t.id
    limit ${limit}`.execute(db);
  return rows.map((row) => row.search_id);
}

/**
 * Search ids of the tiers after the title step, at most `limit` callable tools, tier by tier.
 * The widest tiers whose matches are within the cap (all of them, else those up to the AND of
 * whole words) rank in one statement; the tiers past the cap follow one by one, each capped.
 */
export async function tierIdsAll(
  db: Kysely<Database>,
  terms: readonly SearchTerm[],
  range: Range,
  filter: RawBuilder<unknown>,
  limit: number,
): Promise<number[]> {
  const tiers = tiersFor(terms);
  const counts = new Map<Tier, number>();
  const count = async (tier: Tier) => {
    const known = counts.get(tier);
    if (known !== undefined) return known;
    const counted = await countUpTo(db, ftsMatch(terms, tier.mode, tier), range, RANKED_CANDIDATES + 1);
    counts.set(tier, counted);
    return counted;
  };
  let split = tiers.length - 1;
  if ((await count(tiers[split] as Tier)) > RANKED_CANDIDATES) {
    split = tiers.findIndex((tier) => tier.mode === 'all' && !tier.prefix && !tier.columns);
    if (split >= 0 && (await count(tiers[split] as Tier)) > RANKED_CANDIDATES) split = -1;
  }
  const found: number[] = [];
  const add = (ids: readonly number[]) => {
    for (const id of ids) if (found.length < limit && !found.includes(id)) found.push(id);
  };
  if (split >= 0 && (await count(tiers[split] as Tier)) > 0) {
    add(await rankedTogether(db, tiers.slice(0, split + 1), terms, range, filter, limit));
  }
  for (const tier of tiers.slice(split + 1)) {
    if (found.length >= limit) break;
    const matches = await count(tier);
    // The tools found by the tiers before come again: ask for that many more.
    if (matches > 0) add(await tierIds(db, tier, matches, terms, range, filter, limit + found.length));
  }
  return found;
}

/**
 * Search ids of one tier with `matches` matches (counted up to the cap and one more), best first,
 * at most `limit` callable tools: by bm25, or, past the cap, the first matches by id length.
 */
async function tierIds(
  db: Kysely<Database>,
  tier: Tier,
  matches: number,
  terms: readonly SearchTerm[],
  range: Range,
  filter: RawBuilder<unknown>,
  limit: number,
): Promise<number[]> {
  const match = ftsMatch(terms, tier.mode, tier);
  const capped = matches > RANKED_CANDIDATES;
  const score = capped ? sql`0` : sql`bm25(tool_search, ${WEIGHTS})`;
  const { rows } = await sql<{ search_id: number }>`select m.rowid as search_id from (
      select rowid, ${score} as score from tool_search
      where tool_search match ${match} and rowid between ${range.lo} and ${range.hi}
      limit ${capped ? TITLE_CANDIDATES : RANKED_CANDIDATES}
    ) m
    cross join tools t on t.search_id = m.rowid
    cross join services s on s.id = t.service_id
    where ${filter}
    order by ${capped ? sql`t.id_words` : sql`m.score`}, t.service_id, t.id
    limit ${limit}`.execute(db);
  return rows.map((row) => row.search_id);
}
