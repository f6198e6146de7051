import { realpathSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../database';
import { lockPerFile } from './file-lock';
import { cacheStatements } from './statement-cache';

/** Options of {@link createKysely}. */
export interface CreateKyselyOptions {
  /** The SQLite file (created when absent). */
  readonly filename: string;
  /** How long a writer waits for a lock held by another connection; default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

/**
 * Open a SQLite file with the settings cyrnel relies on: WAL (readers never block the writer),
 * foreign keys on (cascades), a busy timeout (a second process waits instead of failing), and
 * connections of this process to the same file taking turns.
 * Internal to the store package: the process store uses it too.
 */
export function createKysely(options: CreateKyselyOptions): Kysely<Database> {
  const sqlite = new SqliteDatabase(options.filename);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  sqlite.pragma('synchronous = NORMAL');
  const dialect = new SqliteDialect({ database: cacheStatements(sqlite) });
  if (sqlite.memory) return new Kysely<Database>({ dialect });
  // Connections of this process to one file take turns (see lockPerFile): keyed by the real path.
  return new Kysely<Database>({ dialect: lockPerFile(dialect, realpathSync(options.filename)) });
}
