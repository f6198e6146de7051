import { INDEXED_DESCRIPTION_WORDS, searchWords } from '@cyrnel/core';
import { type QueryExecutorProvider, sql } from 'kysely';
import type { IndexedService } from '../store-dialect';

// Raw SQL on any executor (a database, a transaction): migration 0004 indexes existing tools with it too.

/** Add a service's tools to `tool_search` (call in the transaction that inserts the tool rows). */
export async function indexServiceTools(db: QueryExecutorProvider, service: IndexedService): Promise<void> {
  const serviceWords = searchWords(`${service.serviceId} ${service.serviceName}`);
  // Chunked: SQLite caps bound parameters per statement.
  for (let i = 0; i < service.tools.length; i += 100) {
    const rows = service.tools
      .slice(i, i + 100)
      .map(
        (tool, j) =>
          sql`(${service.firstSearchId + i + j}, ${searchWords(tool.id)}, ${searchWords(tool.name)}, ${searchWords(
            (tool.keywords ?? []).join(' '),
          )}, ${searchWords(tool.description, INDEXED_DESCRIPTION_WORDS)}, ${serviceWords})`,
      );
    await sql`insert into tool_search (rowid, id, name, keywords, description, service) values ${sql.join(
      rows,
    )}`.execute(db);
  }
}

/** Remove a service's tools from `tool_search` (call before deleting the tool rows). */
export async function unindexServiceTools(db: QueryExecutorProvider, serviceId: string): Promise<void> {
  await sql`delete from tool_search where rowid in (select search_id from tools where service_id = ${serviceId})`.execute(
    db,
  );
}
