import { wordCount } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import { indexServiceTools } from '../tool-search-index';

interface ExistingTool {
  service_id: string;
  service_name: string;
  id: string;
  name: string;
  description: string;
}

/**
 * Ranked tool search on PostgreSQL (issue 22): the columns the shared code writes (as on SQLite)
 * and a weighted `tsvector` per tool with a GIN index, in place of SQLite's FTS5 table.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await sql`alter table tools add column keywords text not null default '[]'`.execute(db);
  await sql`alter table tools add column search_id integer not null default 0`.execute(db);
  await sql`alter table tools add column id_words integer not null default 0`.execute(db);
  await sql`alter table tools add column name_words integer not null default 0`.execute(db);
  await sql`alter table tools add column search_document tsvector not null default ''::tsvector`.execute(db);
  const { rows } = await sql<ExistingTool>`
    select tools.service_id, services.name as service_name, tools.id, tools.name, tools.description
    from tools join services on services.id = tools.service_id
    order by tools.service_id, tools.id`.execute(db);
  let next = 1;
  for (let i = 0; i < rows.length; ) {
    const first = rows[i] as ExistingTool;
    let end = i;
    while (end < rows.length && (rows[end] as ExistingTool).service_id === first.service_id) end++;
    const tools = rows.slice(i, end);
    for (const [j, tool] of tools.entries()) {
      await sql`update tools set search_id = ${next + j}, id_words = ${wordCount(tool.id)},
        name_words = ${wordCount(tool.name)} where service_id = ${tool.service_id} and id = ${tool.id}`.execute(
        db,
      );
    }
    await indexServiceTools(db, {
      serviceId: first.service_id,
      serviceName: first.service_name,
      firstSearchId: next,
      tools,
    });
    next += tools.length;
    i = end;
  }
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
