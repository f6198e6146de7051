import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from './database';
import { runMigrations } from './run-migrations';
import { createKysely } from './sqlite/create-kysely';
import { sqliteDialect } from './sqlite/sqlite-dialect';

/** A SQLite file in a fresh temp directory, for the process tests. */
export interface ProcessTestDatabase {
  readonly file: string;
  /** Open a migrated connection to the file; call again to simulate a host restart. */
  open(): Promise<Kysely<Database>>;
  /** Close every connection and remove the directory. */
  dispose(): Promise<void>;
}

/** Create a test database with the settings and migrations `openSqliteStore` uses. */
export function createProcessTestDatabase(): ProcessTestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-processes-'));
  const file = join(dir, 'cyrnel.db');
  const opened: Kysely<Database>[] = [];
  return {
    file,
    async open() {
      const db = createKysely({ filename: file });
      opened.push(db);
      await runMigrations(db, sqliteDialect.migrations);
      return db;
    },
    async dispose() {
      await Promise.all(opened.splice(0).map((db) => db.destroy()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
