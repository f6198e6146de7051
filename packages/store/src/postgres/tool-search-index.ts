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
  for (const [j, tool] of service.tools.entries()) {
    const description = searchWords(tool.description).split(' ', DESCRIPTION_WORDS).join(' ');
    await sql`update tools set search_document =
        setweight(to_tsvector('simple', ${searchWords(tool.id)}), 'A') ||
        setweight(to_tsvector('simple', ${`${searchWords(tool.name)} ${searchWords((tool.keywords ?? []).join(' '))}`}), 'B') ||
        setweight(to_tsvector('simple', ${`${description} ${serviceWords}`}), 'C')
      where service_id = ${service.serviceId} and search_id = ${service.firstSearchId + j}`.execute(db);
  }
}
