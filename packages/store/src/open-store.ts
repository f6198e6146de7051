import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CatalogStorage, KeyStorage, ProcessStorage } from '@cyrnel/core';
import { createCatalogStore } from './catalog-store';
import { createKysely } from './create-kysely';
import { prepareDatabaseFile, tightenDatabaseSidecars } from './database-file-mode';
import { createKeyStore } from './key-store';
import { createProcessStore } from './process-store';
import { runMigrations } from './run-migrations';

/** Options of {@link openStore}: a data directory (`data.db` inside it) or an explicit file. */
export interface OpenStoreOptions {
  /** The data directory; the database is `data.db` in it. */
  readonly dataDir?: string;
  /** The database file; wins over `dataDir`. */
  readonly filename?: string;
  /** SQLite busy timeout; default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

/** An open cyrnel database: the storage ports of `@cyrnel/core`, and `close()`. */
export interface Store {
  /** Modules, services, tools, config and secrets. */
  readonly catalog: CatalogStorage;
  /** Processes and their tool calls. */
  readonly processes: ProcessStorage;
  /** API keys (hashes only); hand to `createKeyRing` of `@cyrnel/core`. */
  readonly keys: KeyStorage;
  /** The database file. */
  readonly filename: string;
  /** Close the database; the ports must not be used afterwards. */
  close(): Promise<void>;
}

/**
 * Open (creating when needed) and migrate the cyrnel database.
 *
 * @example
 * ```ts
 * const store = await openStore({ dataDir: '/var/lib/cyrnel' });
 * const host = await createHost({ storage: store, ... });
 * ```
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const filename = options.filename ?? (options.dataDir ? join(options.dataDir, 'data.db') : undefined);
  if (!filename) throw new Error('openStore needs a dataDir or a filename');
  const onDisk = filename !== ':memory:';
  if (onDisk) {
    // A directory created here is owner-only like the files in it (an existing one is left as it is).
    mkdirSync(dirname(filename), { recursive: true, mode: 0o700 });
    prepareDatabaseFile(filename);
  }
  const db = createKysely({ filename, busyTimeoutMs: options.busyTimeoutMs });
  try {
    await runMigrations(db);
    if (onDisk) tightenDatabaseSidecars(filename);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    catalog: createCatalogStore(db),
    processes: createProcessStore(db),
    keys: createKeyStore(db),
    filename,
    close: () => {
      closed ??= db.destroy();
      return closed;
    },
  };
}
