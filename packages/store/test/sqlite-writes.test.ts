import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newService, newTool } from '@cyrnel/core/testing';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../src/sqlite/index';

const LATER = '2026-01-02T00:00:00.000Z';
const SECRETS = { keyId: 'k', iv: 'aXY=', tag: 'dGFn', ciphertext: 'Y2lwaGVy' };

let dir: string | undefined;
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function open(options: { busyTimeoutMs?: number } = {}): Promise<SqliteStore> {
  dir ??= mkdtempSync(join(tmpdir(), 'cyrnel-writes-'));
  const store = await openSqliteStore({ dataDir: dir, ...options });
  stores.push(store);
  return store;
}

/** Rows of the database file, read by a connection of its own. */
function rows(store: SqliteStore, query: string): unknown[] {
  const db = new Database(store.filename, { readonly: true });
  try {
    return db.prepare(query).all();
  } finally {
    db.close();
  }
}

describe('catalog writes on a SQLite file', () => {
  it('fails a definition replace that cannot take the write lock with SQLITE_BUSY, changing nothing', async () => {
    // No busy wait: a write while another connection holds the write lock fails at once.
    const store = await open({ busyTimeoutMs: 0 });
    await store.catalog.insertService(newService('pets', { enabled: true }));
    const blocker = new Database(store.filename);
    blocker.exec('begin immediate');
    try {
      const replaced = store.catalog.replaceServiceDefinition(
        'pets',
        { ...newService('pets'), hash: 'b'.repeat(64), tools: [newTool('createPet')] },
        false,
        LATER,
      );
      await expect(replaced).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    } finally {
      blocker.exec('rollback');
      blocker.close();
    }
    expect(await store.catalog.getService('pets')).toMatchObject({
      enabled: true,
      hash: 'a'.repeat(64),
      toolCount: 3,
    });
    const search = await store.catalog.searchTools({
      text: 'issues_create',
      adapters: ['openapi'],
      limit: 5,
    });
    expect(search.map((row) => row.id)[0]).toBe('issues_create');
  });

  it('lets one of two stores on one file win a race to insert one service id; the other is 409 and every row is the winner’s', async () => {
    const first = await open();
    const second = await open();
    const results = await Promise.allSettled([
      first.catalog.insertService(newService('pets', { tools: [newTool('getPet'), newTool('listPets')] })),
      second.catalog.insertService(newService('pets', { tools: [newTool('other')] })),
    ]);
    const won = results.findIndex((result) => result.status === 'fulfilled');
    const lost = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(lost?.reason).toMatchObject({ code: 'conflict', status: 409, reason: 'service_exists' });
    expect(rows(first, 'select id from services')).toEqual([{ id: 'pets' }]);
    expect(rows(first, 'select id from tools order by id')).toEqual(
      won === 0 ? [{ id: 'getPet' }, { id: 'listPets' }] : [{ id: 'other' }],
    );
    expect(rows(first, 'select owner_id from service_config')).toEqual([{ owner_id: 'pets' }]);
  });

  it('leaves no row of a deleted service in any table', async () => {
    const store = await open();
    await store.catalog.insertService(newService('pets', { secrets: SECRETS }));
    await store.catalog.insertService(newService('kept'));
    // Each table and the column naming the service its rows belong to.
    const tables = {
      services: 'id',
      tools: 'service_id',
      service_config: 'owner_id',
      service_connections: 'service_id',
    };
    const countOfPets = () =>
      Object.entries(tables).map(
        ([table, column]) => rows(store, `select * from ${table} where ${column} = 'pets'`).length,
      );
    expect(countOfPets()).toEqual([1, 3, 1, 1]);
    expect(await store.catalog.deleteService('pets')).toBe(true);
    expect(countOfPets()).toEqual([0, 0, 0, 0]);
    expect(rows(store, 'select id from services')).toEqual([{ id: 'kept' }]);
  });
});
