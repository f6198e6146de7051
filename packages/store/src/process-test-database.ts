import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { up } from './migrations/0002-processes';
import type { ProcessTables } from './process-tables';

/** A SQLite file in a fresh temp directory, for the process tests. */
export interface ProcessTestDatabase {
  readonly file: string;
  /** Open a connection to the file (migrating it on first open). */
  open(): Promise<Kysely<ProcessTables>>;
  /** Close every connection and remove the directory. */
  dispose(): Promise<void>;
}

/** Create a test database; `open()` may be called again to simulate a host restart. */
export function createProcessTestDatabase(): ProcessTestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-processes-'));
  const file = join(dir, 'cyrnel.db');
  const opened: Kysely<ProcessTables>[] = [];
  let migrated = false;
  return {
    file,
    async open() {
      const sqlite = new Database(file);
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('foreign_keys = ON');
      const db = new Kysely<ProcessTables>({ dialect: new SqliteDialect({ database: sqlite }) });
      opened.push(db);
      if (!migrated) {
        await up(db);
        migrated = true;
      }
      return db;
    },
    async dispose() {
      await Promise.all(opened.splice(0).map((db) => db.destroy()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
