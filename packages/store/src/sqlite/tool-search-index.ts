import { searchWords } from '@cyrnel/core';
import { type QueryExecutorProvider, sql } from 'kysely';
import type { IndexedService } from '../store-dialect';

/**
 * Only a description's first words are indexed: they say what the tool does, and what follows
 * (scopes, notes, pagination) would match nearly every query and, being long, would weigh the
 * tool down in bm25 (which divides by the whole row's length, whatever the column weights).
 */
export const DESCRIPTION_WORDS = 64;

// Raw SQL on any executor (a database, a transaction): migration 0004 indexes existing tools with it too.

function leadingWords(text: string): string {
  return searchWords(text, DESCRIPTION_WORDS);
}

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
          )}, ${leadingWords(tool.description)}, ${serviceWords})`,
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
