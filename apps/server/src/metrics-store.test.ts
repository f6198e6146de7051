import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@cyrnel/store/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { timedStore } from './metrics-store';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('timedStore', () => {
  it("times every call of a real store's ports by port and operation, failures too", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cyrnel-timed-'));
    dirs.push(dir);
    const seen: [string, string, boolean][] = [];
    const store = timedStore(
      await openSqliteStore({ filename: join(dir, 'data.db') }),
      (port, operation, seconds, ok) => {
        expect(seconds).toBeGreaterThanOrEqual(0);
        seen.push([port, operation, ok]);
      },
    );
    try {
      expect(await store.keys.count()).toBe(0);
      expect(await store.processes.get(42)).toBeUndefined();
      expect(await store.catalog.listServices({})).toEqual([]);
      await expect(store.processes.update(1, { state: 'nope' } as never)).rejects.toThrow();
      expect(seen).toEqual([
        ['keys', 'count', true],
        ['processes', 'get', true],
        ['catalog', 'listServices', true],
        ['processes', 'update', false],
      ]);
      // What is not a port is the store's own.
      expect(store.dialect).toBe('sqlite');
    } finally {
      await store.close();
    }
  });
});
