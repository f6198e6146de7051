import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../test/support/temp-dirs';
import { openSqliteStore } from './open-sqlite-store';

const tempDir = useTempDirs('mode');

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('database file modes', () => {
  it('creates the database, its WAL and shared memory 0600 and a new directory 0700', async () => {
    const root = tempDir();
    const filename = join(root, 'nested', 'data.db');
    const store = await openSqliteStore({ filename });
    try {
      await store.processes.list({ limit: 1 });
      expect(modeOf(join(root, 'nested'))).toBe(0o700);
      for (const path of [filename, `${filename}-wal`, `${filename}-shm`]) {
        expect({ path, mode: modeOf(path).toString(8) }).toEqual({ path, mode: '600' });
      }
    } finally {
      await store.close();
    }
  });

  it('tightens a database and WAL an older version left readable by others', async () => {
    const root = tempDir();
    const filename = join(root, 'data.db');
    await (await openSqliteStore({ filename })).close();
    writeFileSync(`${filename}-wal`, '');
    chmodSync(filename, 0o644);
    chmodSync(`${filename}-wal`, 0o666);
    const store = await openSqliteStore({ filename });
    try {
      expect(modeOf(filename)).toBe(0o600);
      expect(modeOf(`${filename}-wal`)).toBe(0o600);
    } finally {
      await store.close();
    }
  });
});
