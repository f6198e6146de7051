import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../test/support/temp-dirs';
import { createKysely } from './create-kysely';
import { openSqliteStore } from './open-sqlite-store';

const tempDir = useTempDirs('store');

/**
 * Hold the write lock of `filename` from another thread for `holdMs`; resolves once it is held.
 * Another thread, since better-sqlite3 busy-waits synchronously and would block this one.
 */
async function lockFromAnotherThread(filename: string, holdMs: number) {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const Database = require(workerData.driver);
     const db = new Database(workerData.filename);
     db.exec('begin immediate');
     parentPort.postMessage('locked');
     setTimeout(() => { db.exec('commit'); db.close(); parentPort.postMessage('released'); }, workerData.holdMs);`,
    {
      eval: true,
      workerData: { filename, holdMs, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    },
  );
  const released = new Promise<void>((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (message: string) => {
      if (message === 'released') resolve();
    });
  });
  await new Promise<void>((resolve) => worker.once('message', () => resolve()));
  return { released, stop: () => worker.terminate() };
}

const moduleRow = (id: string) => ({
  id,
  type: 'adapter' as const,
  name: id,
  description: '',
  version: '1.0.0',
  isBuiltin: true,
  enabled: true,
  missing: false,
  createdAt: 'now',
  updatedAt: 'now',
});

describe('openSqliteStore', () => {
  it('creates data.db in the data directory, in WAL mode, with every table migrated', async () => {
    const dataDir = join(tempDir(), 'nested');
    const store = await openSqliteStore({ dataDir, busyTimeoutMs: 1234 });
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
        'service_connections',
        'module_config',
        'module_secrets',
        'processes',
        'hosts',
        'catalog_revision',
        'key_usage',
        'service_policies',
        'approvals',
        'principals',
      ]),
    );
    // A service's secrets are its default connection since migration 0018.
    expect(tables).not.toContain('service_secrets');
    expect(db.prepare('select name from cyrnel_migration order by name').pluck().all()).toEqual([
      '0001-catalog',
      '0002-processes',
      '0003-keys',
      '0004-tool-search',
      '0005-shared-schemas',
      '0006-process-error-reason',
      '0007-service-origin',
      '0009-hosts',
      '0010-kill-requests',
      '0011-shared-queue',
      '0013-call-records',
      '0014-key-usage',
      '0015-kill-reason',
      '0016-policies',
      '0017-principals',
      '0018-connections',
      '0019-principal-subjects',
      '0020-connection-oauth',
      '0021-observed-outputs',
      '0022-trace-context',
      '0023-process-metrics',
    ]);
    db.close();
  });

  it('migrates once and opens an up-to-date database again', async () => {
    const filename = join(tempDir(), 'x.db');
    const first = await openSqliteStore({ filename });
    await first.catalog.insertModule(moduleRow('m'));
    await first.close();
    const second = await openSqliteStore({ filename });
    expect((await second.catalog.listModules()).map((row) => row.id)).toEqual(['m']);
    await second.close();
  });

  it('refuses a database written by a newer version, with a clear message', async () => {
    const filename = join(tempDir(), 'x.db');
    await (await openSqliteStore({ filename })).close();
    const db = new Database(filename);
    db.prepare("insert into cyrnel_migration (name, timestamp) values ('0099-future', 'later')").run();
    db.close();
    await expect(openSqliteStore({ filename })).rejects.toThrow(
      /newer version of cyrnel \(unknown migrations: 0099-future\)/,
    );
  });

  it('enforces foreign keys', async () => {
    const store = await openSqliteStore({ dataDir: tempDir() });
    await expect(store.catalog.setConfig({ kind: 'service', id: 'ghost' }, {}, 'now')).rejects.toThrow(
      /FOREIGN KEY/,
    );
    await store.close();
  });

  it('needs a data directory or a file name', async () => {
    await expect(openSqliteStore({})).rejects.toThrow('dataDir or a filename');
  });

  it('sets the busy timeout on its connection (5 s by default)', async () => {
    const filename = join(tempDir(), 'x.db');
    const configured = createKysely({ filename, busyTimeoutMs: 1234 });
    const defaults = createKysely({ filename });
    try {
      expect((await sql`pragma busy_timeout`.execute(configured)).rows).toEqual([{ timeout: 1234 }]);
      expect((await sql`pragma busy_timeout`.execute(defaults)).rows).toEqual([{ timeout: 5000 }]);
    } finally {
      await configured.destroy();
      await defaults.destroy();
    }
  });

  it('waits for a write lock held by another connection, as long as its busy timeout allows', async () => {
    const filename = join(tempDir(), 'x.db');
    const patient = await openSqliteStore({ filename });
    const impatient = await openSqliteStore({ filename, busyTimeoutMs: 0 });
    try {
      const lock = await lockFromAnotherThread(filename, 200);
      await expect(impatient.catalog.insertModule(moduleRow('a'))).rejects.toMatchObject({
        code: 'SQLITE_BUSY',
      });
      // The default busy timeout (5 s) outlasts the 200 ms hold: the write waits, then succeeds.
      await patient.catalog.insertModule(moduleRow('b'));
      await lock.released;
      await lock.stop();
      expect((await patient.catalog.listModules()).map((row) => row.id)).toEqual(['b']);
    } finally {
      await patient.close();
      await impatient.close();
    }
  });
});
