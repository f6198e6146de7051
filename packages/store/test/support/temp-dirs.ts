import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/sqlite/index';

/**
 * A fresh directory under the system's temp folder per call (`cyrnel-<prefix>-…`), each removed
 * after the test that made it.
 *
 * @example
 * ```ts
 * const tempDir = useTempDirs('statements');
 * it('…', () => { const file = join(tempDir(), 'data.db'); });
 * ```
 */
export function useTempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `cyrnel-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
}

/** A store on a real SQLite file in a fresh temp directory; `close` closes it and removes the directory. */
export async function openTempSqliteStore(
  prefix: string,
): Promise<{ readonly store: SqliteStore; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `cyrnel-${prefix}-`));
  const store = await openSqliteStore({ filename: join(dir, 'data.db') });
  return {
    store,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
