import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createStore, type Store } from '../create-store';
import { createKysely } from './create-kysely';
import { prepareDatabaseFile, tightenDatabaseSidecars } from './database-file-mode';
import { sqliteDialect } from './sqlite-dialect';

/** Options of {@link openSqliteStore}: a data directory (`data.db` inside it) or an explicit file. */
export interface OpenSqliteStoreOptions {
  /** The data directory; the database is `data.db` in it. */
  readonly dataDir?: string;
  /** The database file; wins over `dataDir`. */
  readonly filename?: string;
  /** SQLite busy timeout; default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

/** A store on a SQLite file. */
export interface SqliteStore extends Store {
  /** The database file. */
  readonly filename: string;
}

/**
 * Open (creating when needed) and migrate the cyrnel database in a SQLite file: owner-only
 * file and directory, then {@link createKysely} and `createStore` with {@link sqliteDialect}.
 *
 * @example
 * ```ts
 * import { openSqliteStore } from '@cyrnel/store/sqlite';
 *
 * const store = await openSqliteStore({ dataDir: '/var/lib/cyrnel' });
 * const host = await createHost({ storage: store, ... });
 * ```
 */
export async function openSqliteStore(options: OpenSqliteStoreOptions): Promise<SqliteStore> {
  const filename = options.filename ?? (options.dataDir ? join(options.dataDir, 'data.db') : undefined);
  if (!filename) throw new Error('openSqliteStore needs a dataDir or a filename');
  const onDisk = filename !== ':memory:';
  if (onDisk) {
    // A directory created here is owner-only like the files in it (an existing one is left as it is).
    mkdirSync(dirname(filename), { recursive: true, mode: 0o700 });
    prepareDatabaseFile(filename);
  }
  const store = await createStore({
    db: createKysely({ filename, busyTimeoutMs: options.busyTimeoutMs }),
    dialect: sqliteDialect,
  });
  try {
    if (onDisk) tightenDatabaseSidecars(filename);
  } catch (error) {
    await store.close();
    throw error;
  }
  return { ...store, filename };
}
