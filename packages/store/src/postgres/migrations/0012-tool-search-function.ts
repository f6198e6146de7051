import { type Kysely, sql } from 'kysely';

/** Matches ranked with `ts_rank` at most (as `RANKED_CANDIDATES` on SQLite). */
const RANKED_CANDIDATES = 1_000;
/** Matches ordered by id length past {@link RANKED_CANDIDATES}: the first ones found. */
const TITLE_CANDIDATES = 250;
/**
 * Past this many estimated matches, the first {@link TITLE_CANDIDATES} are read in table order
 * (≈ 250 × tools / matches rows) instead of through GIN, whose cost grows with the matches: at
 * 100,000 tools they cost the same around here.
 */
const DENSE_MATCHES = 5_000;
/** A query word starting more indexed words than this is left to GIN as a prefix. */
const EXPANDED_WORDS = 64;

// Tools an agent can call: the tool's flag on, its service neither off, of an inactive adapter,
// nor excluded. A hashed `not in` rather than a join: the plan is generic (estimates blind), and
// a join planned on blind estimates may scan the services once per match.
const CALLABLE = `t.enabled = 1 and t.service_id not in (select s.id from services s
    where s.enabled <> 1 or not s.adapter = any(adapters) or s.id = any(excluded))`;

// The words of a search after its exact id: that id's tools, if any, were all answered.
const AFTER_EXACT = '(exact_id is null or lower(t.id) <> lower(exact_id))';

/**
 * `search_tools`: a whole search (after the query is parsed) in one call, its statements planned
 * once per connection (generic plans: every choice below is made at run time, by conditions
 * checked once before the scans they guard). Kysely sends each statement unnamed, so a search
 * sent as SQL would be planned on every call (≈ 1 ms of a 2 ms search). Steps:
 *
 * 1. the exact id (`lower(id)` index), in (service, id) order;
 * 2. each word as the indexed words it starts (`tool_words`, `'list' | 'lists' | …`): the same
 *    tools as the prefix `list:*`, but GIN intersects exact words by skipping through postings,
 *    where a prefix makes it read and merge every posting of every word it starts (≈ 10 ms for four
 *    common prefixes at 100,000 tools); their counts estimate the matches, as if the words were
 *    independent, out of the planner's count of tools, and pick the rarest word, given to GIN as a
 *    key of its own (in one key for all the words, GIN may lead with rare forms of common words);
 * 3. the tools holding every word as a prefix, by `ts_rank` (id words weigh most) while they are
 *    at most RANKED_CANDIDATES; past that (estimated, or counted up to it), as on SQLite, the
 *    first TITLE_CANDIDATES found by id length (the shortest ids are the most general tools),
 *    since `ts_rank` scores every match. In one service: its tools in search-id order, the words
 *    checked on each. Everywhere: GIN, or, past DENSE_MATCHES estimated, the table in order, the
 *    words checked on each row until enough are found. Table order makes "first" the same on both
 *    paths: no synchronized scans (they start where another scan is), no parallel workers.
 */
const SEARCH_TOOLS = sql.raw(`create function search_tools(
    adapters text[], excluded text[], scope text, exact_id text, words text[], wanted integer)
  returns table (service_id text, id text, name text, description text, enabled integer,
    service_enabled integer, adapter text)
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set synchronize_seqscans = off
  set max_parallel_workers_per_gather = 0
as $body$
#variable_conflict use_column
declare
  answered integer := 0;
  ranked tsquery;
  groups text[];
  rarest tsquery;
  others tsquery;
  estimate float8;
begin
  if exact_id is not null then
    return query select t.service_id, t.id, t.name, t.description, t.enabled, s.enabled, s.adapter
      from tools t join services s on s.id = t.service_id
      where ${CALLABLE} and (scope is null or t.service_id = scope) and lower(t.id) = lower(exact_id)
      order by t.service_id, t.id limit wanted;
    get diagnostics answered = row_count;
  end if;
  if answered >= wanted or cardinality(words) = 0 then
    return;
  end if;
  -- The words a word starts lie before the word with its last letter's successor (collation "C").
  select to_tsquery('simple', string_agg(g.word || ':*', ' & ')),
      array_agg('(' || g.alternatives || ')' order by coalesce(g.tools, n.tools)),
      exp(sum(ln(greatest(least(1, coalesce(g.tools, n.tools) / n.tools), 1e-9)))) * max(n.tools)
    into ranked, groups, estimate
    from (select w.word, e.alternatives, e.tools from unnest(words) as w(word), lateral (
        select case when count(*) between 1 and ${EXPANDED_WORDS}
            then string_agg('''' || v.word || '''', ' | ') else '''' || w.word || ''':*' end as alternatives,
          case when count(*) <= ${EXPANDED_WORDS} then coalesce(sum(v.tools), 0) end as tools
        from (select tw.word, tw.tools from tool_words tw
          where tw.word >= w.word and tw.word < left(w.word, -1) || chr(ascii(right(w.word, 1)) + 1)
            and tw.tools > 0
          order by tw.word limit ${EXPANDED_WORDS + 1}) v) e) g,
      (select greatest(max(reltuples), 1)::float8 as tools from pg_class where oid = to_regclass('tools')) n;
  -- Two GIN keys: the rarest word leads, GIN skipping through the others' postings to its matches.
  -- A single word is one key: the same key twice would be read twice.
  rarest := groups[1]::tsquery;
  others := nullif(array_to_string(groups[2:], ' & '), '')::tsquery;
  return query with
    in_service as materialized (
      select t.service_id, t.id, t.search_document from tools t
      where scope is not null and t.service_id = scope and ${CALLABLE} and ${AFTER_EXACT}
        and ts_match_vq(t.search_document, ranked)
      order by t.search_id limit ${RANKED_CANDIDATES + 1}),
    indexed as materialized (
      select * from (
        select t.service_id, t.id, t.search_document from tools t
        where scope is null and estimate <= ${DENSE_MATCHES} and others is null and ${CALLABLE} and ${AFTER_EXACT}
          and t.search_document @@ rarest
        union all
        select t.service_id, t.id, t.search_document from tools t
        where scope is null and estimate <= ${DENSE_MATCHES} and others is not null and ${CALLABLE}
          and ${AFTER_EXACT} and t.search_document @@ rarest and t.search_document @@ others) m
      limit case when estimate > ${RANKED_CANDIDATES} then ${TITLE_CANDIDATES} else ${RANKED_CANDIDATES + 1} end),
    scanned as materialized (
      select t.service_id, t.id, t.search_document from tools t
      where scope is null and estimate > ${DENSE_MATCHES} and ${CALLABLE} and ${AFTER_EXACT}
        and ts_match_vq(t.search_document, ranked)
      limit ${TITLE_CANDIDATES}),
    found as (select * from in_service union all select * from indexed union all select * from scanned),
    broad as materialized (
      select scope is null and estimate > ${RANKED_CANDIDATES} or count(*) > ${RANKED_CANDIDATES} as yes from found),
    scored as (
      select f.service_id, f.id, -ts_rank(f.search_document, ranked) as score
      from found f where not (select yes from broad)
      union all
      select f.service_id, f.id, length(f.id)::real
      from (select * from found limit ${TITLE_CANDIDATES}) f where (select yes from broad))
    select t.service_id, t.id, t.name, t.description, t.enabled, s.enabled, s.adapter
    from (select * from scored order by score, service_id, id limit wanted - answered) f
      join tools t on t.service_id = f.service_id and t.id = f.id join services s on s.id = t.service_id
    order by f.score, f.service_id, f.id;
end
$body$`);

/**
 * Faster tool search on PostgreSQL: `tool_words`, every word of the tools' search
 * documents with how many tools hold it, counted from the tools a database already holds (and
 * kept with the documents from then on); a GIN pending list of 256 kB at most (every search reads
 * it whole: 4 MB, the default, costs ≈ 1 ms a search); and `search_tools`.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await sql`create table tool_words (word text collate "C" primary key, tools integer not null)`.execute(db);
  await sql`insert into tool_words (word, tools)
    select w.word, count(*) from tools, unnest(tsvector_to_array(tools.search_document)) as w(word)
    group by w.word`.execute(db);
  await sql`alter index tools_search_document set (gin_pending_list_limit = 256)`.execute(db);
  await SEARCH_TOOLS.execute(db);
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await sql`drop function search_tools`.execute(db);
  await sql`alter index tools_search_document reset (gin_pending_list_limit)`.execute(db);
  await sql`drop table tool_words`.execute(db);
}
