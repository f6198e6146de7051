import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from './open-store';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-store-'));
  dirs.push(dir);
  return dir;
}

describe('openStore', () => {
  it('creates data.db in the data directory, in WAL mode, with every table migrated', async () => {
    const dataDir = join(tempDir(), 'nested');
    const store = await openStore({ dataDir, busyTimeoutMs: 1234 });
    expect(store.filename).toBe(join(dataDir, 'data.db'));
    await store.close();
    const db = new Database(join(dataDir, 'data.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = db
      .prepare("select name from sqlite_master where type = 'table' order by name")
      .pluck()
      .all();
    expect(tables).toEqual(
      expect.arrayContaining([
        'modules',
        'services',
        'tools',
        'service_config',
        'service_secrets',
        'module_config',
        'module_secrets',
        'processes',
      ]),
    );
    expect(db.prepare('select name from cyrnel_migration order by name').pluck().all()).toEqual([
      '0001-catalog',
      '0002-processes',
    ]);
    db.close();
  });

  it('migrates once and opens an up-to-date database again', async () => {
    const filename = join(tempDir(), 'x.db');
    const first = await openStore({ filename });
    await first.catalog.insertModule({
      id: 'm',
      type: 'adapter',
      name: 'M',
      description: '',
      version: '1.0.0',
      isBuiltin: true,
      enabled: true,
      missing: false,
      createdAt: 'now',
      updatedAt: 'now',
    });
    await first.close();
    const second = await openStore({ filename });
    expect((await second.catalog.listModules()).map((row) => row.id)).toEqual(['m']);
    await second.close();
  });

  it('refuses a database written by a newer version, with a clear message', async () => {
    const filename = join(tempDir(), 'x.db');
    await (await openStore({ filename })).close();
    const db = new Database(filename);
    db.prepare("insert into cyrnel_migration (name, timestamp) values ('0099-future', 'later')").run();
    db.close();
    await expect(openStore({ filename })).rejects.toThrow(
      /newer version of cyrnel \(unknown migrations: 0099-future\)/,
    );
  });

  it('enforces foreign keys', async () => {
    const store = await openStore({ dataDir: tempDir() });
    await expect(store.catalog.setServiceConfig('ghost', {}, 'now')).rejects.toThrow(/FOREIGN KEY/);
    await store.close();
  });

  it('needs a data directory or a file name', async () => {
    await expect(openStore({})).rejects.toThrow('dataDir or a filename');
  });
});
