import { searchWords } from '@cyrnel/core';
import { type QueryExecutorProvider, sql } from 'kysely';
import type { IndexedService } from '../store-dialect';

/** Words of a description that are indexed (as on SQLite). */
const DESCRIPTION_WORDS = 64;

/**
 * Write the tools' search documents, after their rows (in the same transaction): the id's words
 * weigh most (A), then name and keywords (B), then description and service (C). The words are
 * the ones SQLite indexes (`searchWords`: camelCase, snake_case and kebab-case split).
 */
export async function indexServiceTools(db: QueryExecutorProvider, service: IndexedService): Promise<void> {
  const serviceWords = searchWords(`${service.serviceId} ${service.serviceName}`);
  // One statement per 200 tools (an install of a large description has thousands).
  for (let i = 0; i < service.tools.length; i += 200) {
    const rows = service.tools.slice(i, i + 200).map((tool, j) => {
      const description = searchWords(tool.description).split(' ', DESCRIPTION_WORDS).join(' ');
      return sql`(${service.firstSearchId + i + j}::integer, ${searchWords(tool.id)}::text,
        ${`${searchWords(tool.name)} ${searchWords((tool.keywords ?? []).join(' '))}`}::text,
        ${`${description} ${serviceWords}`}::text)`;
    });
    await sql`update tools set search_document =
        setweight(to_tsvector('simple', v.a), 'A') ||
        setweight(to_tsvector('simple', v.b), 'B') ||
        setweight(to_tsvector('simple', v.c), 'C')
      from (values ${sql.join(rows)}) as v(search_id, a, b, c)
      where tools.service_id = ${service.serviceId} and tools.search_id = v.search_id`.execute(db);
  }
}
