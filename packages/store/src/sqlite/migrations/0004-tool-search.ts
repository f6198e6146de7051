import { type Kysely, sql } from 'kysely';
import { reindexExistingTools } from '../../reindex-existing-tools';
import { indexServiceTools } from '../tool-search-index';

// Porter stemming over unicode61 (`issues` finds `issue`); a prefix index for the last word typed;
// contentless (the texts live in `tools`), with deletes, so a row goes with its tool. Full detail:
// bm25 needs the positions (with detail=column it scores every match 0), and a word unicode61
// splits in two (a few scripts' marks) is a phrase query, which only full detail accepts.
const TOOL_SEARCH = sql`create virtual table tool_search using fts5(
  id, name, keywords, description, service,
  tokenize = 'porter unicode61 remove_diacritics 2',
  prefix = '3',
  content = '',
  contentless_delete = 1
)`;

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/** Ranked tool search: an FTS5 index of every tool, kept with the tool rows. */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await sql`alter table tools add column keywords text not null default '[]'`.execute(db);
  await sql`alter table tools add column search_id integer not null default 0`.execute(db);
  await sql`alter table tools add column id_words integer not null default 0`.execute(db);
  await sql`alter table tools add column name_words integer not null default 0`.execute(db);
  await TOOL_SEARCH.execute(db);
  // Tools installed before: each service's in one contiguous range of search ids, like new ones.
  await reindexExistingTools(db, indexServiceTools);
  // Covers what ranking reads of each match (flag, lengths, tie order): no wide tool row is read.
  await db.schema
    .createIndex('tools_search_key')
    .unique()
    .on('tools')
    .columns(['search_id', 'enabled', 'id_words', 'name_words', 'service_id', 'id'])
    .execute();
  await db.schema
    .createIndex('tools_service_search')
    .on('tools')
    .columns(['service_id', 'search_id'])
    .execute();
  // The exact-id step of a search compares case-insensitively.
  await sql`create index tools_id_nocase on tools (id collate nocase)`.execute(db);
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('tools_id_nocase').ifExists().execute();
  await db.schema.dropIndex('tools_service_search').ifExists().execute();
  await db.schema.dropIndex('tools_search_key').ifExists().execute();
  await db.schema.dropTable('tool_search').ifExists().execute();
  await sql`alter table tools drop column name_words`.execute(db);
  await sql`alter table tools drop column id_words`.execute(db);
  await sql`alter table tools drop column search_id`.execute(db);
  await sql`alter table tools drop column keywords`.execute(db);
}
