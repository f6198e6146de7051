import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { runMigrations } from '../../run-migrations';
import { createKysely } from '../create-kysely';
import { openSqliteStore } from '../open-sqlite-store';
import { migrations } from './index';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0006'));

describe('migration 0006-process-error-reason', () => {
  it('gives the processes a database already holds the reason their end implies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-0006-'));
    dirs.push(dir);
    const filename = join(dir, 'data.db');
    const db = createKysely({ filename });
    await runMigrations(db, before);
    const ends = [
      ['success', null],
      ['failed', 'TypeError: x is not a function'],
      ['failed', 'interrupted: the host stopped before the process finished'],
      ['failed', 'interrupted: the host shut down before the process finished'],
      ['timeout', 'timed out after 10 ms'],
      ['canceled', 'canceled by a kill request'],
    ] as const;
    for (const [exitState, error] of ends) {
      await sql`insert into processes (code, state, exit_state, error, created_at, updated_at)
        values ('1', 'idle', ${exitState}, ${error}, 'now', 'now')`.execute(db);
    }
    await db.destroy();

    const store = await openSqliteStore({ filename });
    try {
      const page = await store.processes.list({ limit: 10 });
      expect(page.map((p) => [p.exitState, p.errorReason]).reverse()).toEqual([
        ['success', null],
        ['failed', null],
        ['failed', 'process_interrupted'],
        ['failed', 'process_interrupted'],
        ['timeout', 'process_timeout'],
        ['canceled', 'process_killed'],
      ]);
    } finally {
      await store.close();
    }
  });
});
