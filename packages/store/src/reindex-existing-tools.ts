import { wordCount } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import type { IndexedService } from './store-dialect';

interface ExistingTool {
  service_id: string;
  service_name: string;
  id: string;
  name: string;
  description: string;
}

/**
 * What migration 0004 does to tools stored before tool search, on any dialect: each service's
 * tools get consecutive search ids and their word counts, then `index` (the dialect's) indexes
 * them.
 */
export async function reindexExistingTools<Database>(
  db: Kysely<Database>,
  index: (db: Kysely<Database>, service: IndexedService) => Promise<void>,
): Promise<void> {
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
    await index(db, {
      serviceId: first.service_id,
      serviceName: first.service_name,
      firstSearchId: next,
      tools,
    });
    next += tools.length;
    i = end;
  }
}
