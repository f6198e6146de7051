import type { StoreDialect } from '../store-dialect';
import { compressedDefinitions } from './compressed-definitions';
import { migrations } from './migrations/index';
import { createToolSearch } from './tool-search';
import { indexServiceTools, unindexServiceTools } from './tool-search-index';

const UNIQUE_VIOLATIONS: ReadonlySet<unknown> = new Set([
  'SQLITE_CONSTRAINT_PRIMARYKEY',
  'SQLITE_CONSTRAINT_UNIQUE',
]);

/**
 * SQLite for `createStore`: its migrations, tool search on FTS5 (the `tool_search` table of
 * migration 0004), better-sqlite3's constraint codes and definitions kept compressed. Its Kysely instance comes from
 * {@link createKysely} (pragmas, statement cache, one connection per file at a time).
 *
 * @example
 * ```ts
 * const store = await createStore({ db: createKysely({ filename }), dialect: sqliteDialect });
 * ```
 */
export const sqliteDialect: StoreDialect = {
  name: 'sqlite',
  migrations,
  toolSearch: { add: indexServiceTools, remove: unindexServiceTools, search: createToolSearch },
  isUniqueViolation: (error) => UNIQUE_VIOLATIONS.has((error as { code?: unknown } | null)?.code),
  definitions: compressedDefinitions,
};
