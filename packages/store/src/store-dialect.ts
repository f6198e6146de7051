import type { CatalogStorage } from '@cyrnel/core';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Database } from './database';

/** The databases a store runs on; `postgres` is reserved for the PostgreSQL store to come. */
export type StoreDialectName = 'sqlite' | 'postgres';

/** What a tool is indexed by. */
export interface SearchableTool {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly keywords?: readonly string[];
}

/** A service's tools to index, in the order their search ids were given. */
export interface IndexedService {
  readonly serviceId: string;
  readonly serviceName: string;
  /** The search id (`tools.search_id`) of `tools[0]`; the others follow one by one. */
  readonly firstSearchId: number;
  readonly tools: readonly SearchableTool[];
}

/**
 * A dialect's tool search: its own index (FTS5 on SQLite), written in the transactions that
 * write the tool rows, and the `searchTools` of the catalog port reading it.
 */
export interface ToolSearchIndex {
  /**
   * The dialect's own columns of each tool row (by column name, in the order of `service.tools`),
   * written with the row: PostgreSQL's search document, which written after the row would leave
   * every row twice in the table until vacuumed. Absent: none.
   */
  columns?(service: IndexedService): readonly Readonly<Record<string, RawBuilder<unknown>>>[];
  /** Index a service's tools (in the transaction that inserts their rows, after them). */
  add(trx: Transaction<Database>, service: IndexedService): Promise<void>;
  /** Drop a service's tools from the index (in the transaction, before their rows go). */
  remove(trx: Transaction<Database>, serviceId: string): Promise<void>;
  /** `CatalogStorage.searchTools` on this database. */
  search(db: Kysely<Database>): CatalogStorage['searchTools'];
}

/** How a dialect stores a service's definition text (see {@link StoreDialect.definitions}). */
export interface DefinitionCodec {
  /** What to write for `text`; `utf8` is its UTF-8 when the caller has it (no second encoding). */
  encode(text: string, utf8?: Uint8Array): Promise<string | Uint8Array>;
  /** The text of what was written (by `encode`, or as text by an older version). */
  decode(stored: string | Uint8Array): Promise<string>;
}

/**
 * What the shared store code needs to know of a database beyond what Kysely's own dialect
 * says: the rest of the SQL is portable (see the README). The SQLite one is `sqliteDialect` of
 * `@cyrnel/store/sqlite`. A dialect's database must support `RETURNING` (SQLite ≥ 3.35 and
 * PostgreSQL do); one that must serialize its writes does so in its Kysely instance (the SQLite
 * one takes turns per file).
 *
 * @example
 * ```ts
 * const store = await createStore({ db, dialect: sqliteDialect });
 * ```
 */
export interface StoreDialect {
  readonly name: StoreDialectName;
  /** The schema's migrations in this dialect's SQL, keyed by name; names sort in the order they run. */
  readonly migrations: Readonly<Record<string, Migration>>;
  /** Tool search (dialect-specific: FTS5 on SQLite). */
  readonly toolSearch: ToolSearchIndex;
  /** True when `error`, thrown by this dialect's driver, is a primary-key or unique violation. */
  isUniqueViolation(error: unknown): boolean;
  /** How definition texts are stored; absent: as text. */
  readonly definitions?: DefinitionCodec;
}
