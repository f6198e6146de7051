import type { ApprovalStorage, CatalogStorage, HostSignals, KeyStorage, ProcessStorage } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import { createApprovalStore } from './approval-store';
import { createCatalogStore } from './catalog-store';
import type { Database } from './database';
import { createKeyStore } from './key-store';
import { createProcessStore } from './process-store';
import { runMigrations } from './run-migrations';
import type { StoreDialect, StoreDialectName } from './store-dialect';

/** An open cyrnel database: the storage ports of `@cyrnel/core`, and `close()`. */
export interface Store {
  /** Modules, services, tools, config and secrets. */
  readonly catalog: CatalogStorage;
  /** Processes and their tool calls. */
  readonly processes: ProcessStorage;
  /** API keys (hashes only); hand to `createKeyRing` of `@cyrnel/core`. */
  readonly keys: KeyStorage;
  /** Approvals of calls and plans; hand to `createHost` as `storage.approvals`. */
  readonly approvals: ApprovalStorage;
  /** The database it runs on. */
  readonly dialect: StoreDialectName;
  /**
   * Signals between hosts sharing the database (PostgreSQL's LISTEN/NOTIFY); absent on SQLite,
   * which one host has alone.
   */
  readonly signals?: HostSignals;
  /** Close the database (destroys the Kysely instance); the ports must not be used afterwards. */
  close(): Promise<void>;
}

/** Options of {@link createStore}. */
export interface CreateStoreOptions {
  /** The database; the store owns it from now on (`close()` destroys it, as does a failed migration). */
  readonly db: Kysely<Database>;
  /** What the shared code needs to know of the database: migrations, tool search, errors. */
  readonly dialect: StoreDialect;
  /** Bring the schema up to date first (the dialect's migrations). Default true. */
  readonly migrate?: boolean;
  /**
   * The schema the tables live in, on a database that has schemas (PostgreSQL: the connection's
   * `search_path`), so the migrations look at this schema's record only.
   */
  readonly schema?: string;
}

/**
 * Build the storage ports on any Kysely database: the dialect brings its migrations, its tool
 * search and how its driver reports duplicate keys; the rest of the SQL is shared. The SQLite
 * entry `openSqliteStore` of `@cyrnel/store/sqlite` opens a file and calls this.
 *
 * @example
 * ```ts
 * import { createStore } from '@cyrnel/store';
 * import { createKysely, sqliteDialect } from '@cyrnel/store/sqlite';
 *
 * const store = await createStore({ db: createKysely({ filename: 'data.db' }), dialect: sqliteDialect });
 * const host = await createHost({ storage: store, ... });
 * ```
 */
export async function createStore(options: CreateStoreOptions): Promise<Store> {
  const { db, dialect } = options;
  if (options.migrate !== false) {
    try {
      await runMigrations(db, dialect.migrations, options.schema);
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }
  let closed: Promise<void> | undefined;
  return {
    catalog: createCatalogStore(db, dialect),
    processes: createProcessStore(db, dialect.name),
    keys: createKeyStore(db, dialect.name),
    approvals: createApprovalStore(db),
    dialect: dialect.name,
    close: () => {
      closed ??= db.destroy();
      return closed;
    },
  };
}
