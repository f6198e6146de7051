import { type CatalogStorage, parseSearch, type ToolRow, type ToolSearchQuery } from '@cyrnel/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../database';
import { type ToolBase, toToolRow } from '../tool-rows';

const COLUMNS = sql.raw(
  't.service_id as service_id, t.id as id, t.name as name, t.description as description, ' +
    't.enabled as enabled, s.enabled as service_enabled, s.adapter as adapter',
);

/** Tools an agent can call (as on SQLite): both flags on, the adapter active, not excluded. */
function callable(query: ToolSearchQuery): RawBuilder<unknown> {
  const { serviceId, excludedServices = [] } = query;
  const inService = serviceId === undefined ? sql`` : sql` and t.service_id = ${serviceId}`;
  const excluded =
    excludedServices.length === 0 ? sql`` : sql` and not (s.id = any(${[...excludedServices]}::text[]))`;
  return sql`t.enabled = 1 and s.enabled = 1 and s.adapter = any(${[...query.adapters]}::text[])${inService}${excluded}`;
}

/** A term as a prefix query of its word (letters and digits only: nothing of tsquery's syntax). */
function prefix(word: string): string | undefined {
  const clean = word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return clean === '' ? undefined : `${clean}:*`;
}

/**
 * `CatalogStorage.searchTools` on PostgreSQL: the exact id first (`issues_create`,
 * `github.issues_create`, case-insensitive), then every tool whose document holds all the words
 * as prefixes, by `ts_rank` (id words weigh most), then service and id.
 */
export function createToolSearch(db: Kysely<Database>): CatalogStorage['searchTools'] {
  return async (query) => {
    const limit = Math.max(0, Math.floor(query.limit));
    if (limit === 0) return [];
    const filter = callable(query);
    if (query.text.trim() === '') {
      const { rows } =
        await sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
        where ${filter} order by t.service_id, t.id limit ${limit}`.execute(db);
      return rows.map(toToolRow);
    }
    const { exact, terms } = parseSearch(query.text);
    const found: ToolRow[] = [];
    const seen = new Set<string>();
    if (exact) {
      const scoped = exact.serviceId === undefined ? sql`` : sql` and t.service_id = ${exact.serviceId}`;
      const { rows } =
        await sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
        where ${filter}${scoped} and lower(t.id) = lower(${exact.toolId})
        order by t.service_id, t.id limit ${limit}`.execute(db);
      for (const row of rows) {
        found.push(toToolRow(row));
        seen.add(`${row.service_id}.${row.id}`);
      }
    }
    const words = terms.map((term) => prefix(term.word)).filter((word): word is string => word !== undefined);
    if (found.length < limit && words.length > 0) {
      const scoped = exact?.serviceId === undefined ? sql`` : sql` and t.service_id = ${exact.serviceId}`;
      const tsquery = words.join(' & ');
      const { rows } =
        await sql<ToolBase>`select ${COLUMNS} from tools t join services s on s.id = t.service_id
        where ${filter}${scoped} and t.search_document @@ to_tsquery('simple', ${tsquery})
        order by ts_rank(t.search_document, to_tsquery('simple', ${tsquery})) desc, t.service_id, t.id
        limit ${limit + found.length}`.execute(db);
      for (const row of rows) {
        if (found.length >= limit) break;
        if (seen.has(`${row.service_id}.${row.id}`)) continue;
        found.push(toToolRow(row));
      }
    }
    return found;
  };
}
