import { INDEXED_DESCRIPTION_WORDS, searchWords } from '@cyrnel/core';
import { type QueryExecutorProvider, type RawBuilder, sql } from 'kysely';
import type { IndexedService, SearchableTool } from '../store-dialect';

/**
 * A tool's search document: the id's words weigh most (A), then name and keywords (B), then
 * description and service (C). The words are the ones SQLite indexes (`searchWords`: camelCase,
 * snake_case and kebab-case split).
 */
function searchDocument(tool: SearchableTool, serviceWords: string): RawBuilder<unknown> {
  const description = searchWords(tool.description, INDEXED_DESCRIPTION_WORDS);
  return sql`setweight(to_tsvector('simple', ${searchWords(tool.id)}::text), 'A') ||
    setweight(to_tsvector('simple', ${`${searchWords(tool.name)} ${searchWords((tool.keywords ?? []).join(' '))}`}::text), 'B') ||
    setweight(to_tsvector('simple', ${`${description} ${serviceWords}`}::text), 'C')`;
}

/** `postgresDialect.toolSearch.columns`: each tool's `search_document`, written with its row. */
export function searchDocuments(service: IndexedService): { search_document: RawBuilder<unknown> }[] {
  const serviceWords = searchWords(`${service.serviceId} ${service.serviceName}`);
  return service.tools.map((tool) => ({ search_document: searchDocument(tool, serviceWords) }));
}

/** Write the search documents of tools stored before them (migration 0004). */
export async function indexServiceTools(db: QueryExecutorProvider, service: IndexedService): Promise<void> {
  const documents = searchDocuments(service);
  // One statement per 200 tools (a large description has thousands).
  for (let i = 0; i < documents.length; i += 200) {
    const rows = documents
      .slice(i, i + 200)
      .map((document, j) => sql`(${service.firstSearchId + i + j}::integer, ${document.search_document})`);
    await sql`update tools set search_document = v.document from (values ${sql.join(rows)}) as v(search_id, document)
      where tools.service_id = ${service.serviceId} and tools.search_id = v.search_id`.execute(db);
  }
}

/**
 * Count a service's tools under each word of their documents in `tool_words` (migration 0012),
 * by `sign` (1 when they come, -1 before they go): a search turns its prefixes into these words
 * and estimates its matches from the counts. Writers take turns, from their first count to their
 * commit (a table lock searches do not wait for): a replace counts twice (down, then up), and two
 * writers taking words one by one could each wait for a word the other holds. A word counted down
 * to 0 stays, unused.
 */
async function countToolWords(db: QueryExecutorProvider, serviceId: string, sign: 1 | -1): Promise<void> {
  await sql`lock table tool_words in share row exclusive mode`.execute(db);
  await sql`insert into tool_words (word, tools)
    select w.word, ${sign} * count(*) from tools, unnest(tsvector_to_array(tools.search_document)) as w(word)
    where tools.service_id = ${serviceId} group by w.word
    on conflict (word) do update set tools = greatest(tool_words.tools + excluded.tools, 0)`.execute(db);
}

/** `postgresDialect.toolSearch.add`: the words of the documents written with the tool rows. */
export async function addServiceWords(db: QueryExecutorProvider, service: IndexedService): Promise<void> {
  await countToolWords(db, service.serviceId, 1);
}

/** `postgresDialect.toolSearch.remove`: the documents go with their rows, their words' counts here. */
export async function removeServiceWords(db: QueryExecutorProvider, serviceId: string): Promise<void> {
  await countToolWords(db, serviceId, -1);
}
