import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALL_ROW_BYTES, storedProcessBytes } from '@cyrnel/core';
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

const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0014'));

describe('migration 0014-key-usage', () => {
  it('counts what the processes a database already holds store, per key, and keeps counting from there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-0014-'));
    dirs.push(dir);
    const filename = join(dir, 'data.db');
    const db = createKysely({ filename });
    await runMigrations(db, before);
    for (const [key, stdout] of [
      ['k1', 'ü'.repeat(50)],
      ['k1', ''],
      ['k2', 'x'],
      [null, 'y'.repeat(1000)],
    ] as const) {
      await sql`insert into processes (key_id, code, state, stdout, created_at, updated_at)
        values (${key}, 'ç', 'idle', ${stdout}, 'now', 'now')`.execute(db);
    }
    await sql`insert into process_tool_calls (process_id, service_id, tool_id, started_at, duration_ms, ok)
      values (1, 's', 't', 'now', 1, 1), (1, 's', 't', 'now', 1, 1)`.execute(db);
    await db.destroy();

    const bytes = (stdout: string) =>
      storedProcessBytes({ code: 'ç', envConfig: '{}', output: '{}', stdout, stderr: '' });
    const store = await openSqliteStore({ filename });
    try {
      expect(await store.processes.keyUsage('k1')).toEqual({
        storedBytes: bytes('ü'.repeat(50)) + bytes('') + 2 * CALL_ROW_BYTES,
        processes: 2,
      });
      expect(await store.processes.keyUsage('k2')).toEqual({ storedBytes: bytes('x'), processes: 1 });
      expect(await store.processes.delete(1)).toBe(true);
      expect(await store.processes.keyUsage('k1')).toEqual({ storedBytes: bytes(''), processes: 1 });
    } finally {
      await store.close();
    }
  });
});
