import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CreateHostOptions, type CyrnelHost, createHost } from '@cyrnel/core';
import { type OpenSqliteStoreOptions, openSqliteStore, type SqliteStore } from '../../src/sqlite/index';

/** A data directory in a temp folder with a store and a host on it; `restart()` reopens both. */
export interface Harness {
  readonly dataDir: string;
  host: CyrnelHost;
  store: SqliteStore;
  /** Close the host and the store, then open them again with (possibly changed) options. */
  restart(options?: Partial<CreateHostOptions>): Promise<void>;
  close(): Promise<void>;
}

/** Start a host on a fresh data directory (`storeOptions` for the store, e.g. its busy timeout). */
export async function createHarness(
  options: Partial<CreateHostOptions> = {},
  storeOptions: Omit<OpenSqliteStoreOptions, 'dataDir' | 'filename'> = {},
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cyrnel-host-'));
  let current: Partial<CreateHostOptions> = { secretsKey: randomBytes(32), ...options };
  const open = async () => {
    const store = await openSqliteStore({ dataDir, ...storeOptions });
    const host = await createHost({
      dataDir,
      ...current,
      secretsKey: current.secretsKey ?? randomBytes(32),
      storage: store,
    });
    return { store, host };
  };
  const opened = await open();
  const harness: Harness = {
    dataDir,
    host: opened.host,
    store: opened.store,
    async restart(next = {}) {
      await harness.host.close({ graceMs: 0 });
      await harness.store.close();
      current = { ...current, ...next };
      const reopened = await open();
      harness.host = reopened.host;
      harness.store = reopened.store;
    },
    async close() {
      await harness.host.close({ graceMs: 0 });
      await harness.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
