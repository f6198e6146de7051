import { type Kysely, sql } from 'kysely';
import { reindexExistingTools } from '../../reindex-existing-tools';
import { indexServiceTools } from '../tool-search-index';

/**
 * Ranked tool search on PostgreSQL: the columns the shared code writes (as on SQLite)
 * and a weighted `tsvector` per tool with a GIN index, in place of SQLite's FTS5 table.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await sql`alter table tools add column keywords text not null default '[]'`.execute(db);
  await sql`alter table tools add column search_id integer not null default 0`.execute(db);
  await sql`alter table tools add column id_words integer not null default 0`.execute(db);
  await sql`alter table tools add column name_words integer not null default 0`.execute(db);
  await sql`alter table tools add column search_document tsvector not null default ''::tsvector`.execute(db);
  await reindexExistingTools(db, indexServiceTools);
  await sql`create index tools_search_document on tools using gin (search_document)`.execute(db);
  await db.schema
    .createIndex('tools_service_search')
    .on('tools')
    .columns(['service_id', 'search_id'])
    .execute();
  await sql`create index tools_id_lower on tools (lower(id))`.execute(db);
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('tools_id_lower').ifExists().execute();
  await db.schema.dropIndex('tools_service_search').ifExists().execute();
  await db.schema.dropIndex('tools_search_document').ifExists().execute();
  for (const column of ['search_document', 'name_words', 'id_words', 'search_id', 'keywords'])
    await sql`alter table tools drop column ${sql.ref(column)}`.execute(db);
}
