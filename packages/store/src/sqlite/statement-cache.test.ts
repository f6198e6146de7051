import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../test/support/temp-dirs';
import { cacheStatements } from './statement-cache';

const tempDir = useTempDirs('statements');

function open() {
  const dir = tempDir();
  const sqlite = new Database(join(dir, 'data.db'));
  sqlite.exec('create table t (id integer primary key, v text)');
  let prepared = 0;
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    prepared += 1;
    return prepare(source);
  }) as typeof sqlite.prepare;
  return { sqlite, prepared: () => prepared };
}

describe('cacheStatements', () => {
  it('prepares a query once however often kysely runs it, with the right results each time', async () => {
    const { sqlite, prepared } = open();
    const db = new Kysely<{ t: { id: number; v: string } }>({
      dialect: new SqliteDialect({ database: cacheStatements(sqlite) }),
    });
    for (let i = 1; i <= 20; i++)
      await db
        .insertInto('t')
        .values({ id: i, v: `v${i}` })
        .execute();
    for (let i = 1; i <= 20; i++) {
      const row = await db.selectFrom('t').select('v').where('id', '=', i).executeTakeFirst();
      expect(row).toEqual({ v: `v${i}` });
    }
    expect(prepared()).toBe(2);
    await db.destroy();
    expect(sqlite.open).toBe(false);
  });

  it('keeps at most `capacity` statements, dropping the least recently used', () => {
    const { sqlite, prepared } = open();
    const db = cacheStatements(sqlite, 2);
    db.prepare('select 1');
    db.prepare('select 2');
    db.prepare('select 1');
    db.prepare('select 3');
    expect(prepared()).toBe(3);
    db.prepare('select 1');
    expect(prepared()).toBe(3);
    db.prepare('select 2');
    expect(prepared()).toBe(4);
    db.close();
  });

  it('hands out a fresh statement while the cached one is still being iterated', () => {
    const { sqlite } = open();
    sqlite.exec("insert into t (id, v) values (1, 'a'), (2, 'b')");
    const db = cacheStatements(sqlite);
    const outer = db.prepare('select v from t order by id');
    const seen: unknown[] = [];
    for (const row of outer.iterate([])) {
      const inner = db.prepare('select v from t order by id');
      expect(inner).not.toBe(outer);
      seen.push(row, inner.all([]));
    }
    expect(seen).toEqual([{ v: 'a' }, [{ v: 'a' }, { v: 'b' }], { v: 'b' }, [{ v: 'a' }, { v: 'b' }]]);
    expect(db.prepare('select v from t order by id')).toBe(outer);
    db.close();
  });
});
