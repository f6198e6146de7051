import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from 'kysely';

/**
 * A better-sqlite3 database whose `prepare` reuses statements, for kysely's `SqliteDialect`.
 * Kysely prepares every query anew; preparing was a tenth of the server's time per process
 * (bench/results/profile.md). The cache is bounded (least recently used go first, since queries
 * with `in (...)` lists differ by length), and a statement still being iterated is never handed out
 * twice: the caller gets a fresh one.
 */
export function cacheStatements(db: SqliteDatabase.Database, capacity = 256): KyselySqliteDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close() {
      statements.clear();
      db.close();
    },
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached?.busy) return db.prepare(sql);
      const statement = cached ?? db.prepare(sql);
      statements.delete(sql);
      statements.set(sql, statement);
      if (statements.size > capacity) statements.delete(statements.keys().next().value as string);
      return statement;
    },
  };
}
