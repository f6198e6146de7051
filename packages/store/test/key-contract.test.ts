import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  newKey,
  newPrincipal,
  runKeyStorageContract,
  runPrincipalStorageContract,
} from '@cyrnel/core/testing';
import { describe, expect, it } from 'vitest';
import type { Store } from '../src/index';
import { openPostgresStore } from '../src/postgres/index';
import { openSqliteStore } from '../src/sqlite/index';
import { POSTGRES_TESTS, useFileDatabase } from './support/postgres';
import { openTempSqliteStore } from './support/temp-dirs';

const database = useFileDatabase();

runPrincipalStorageContract({
  name: 'sqlite',
  async create() {
    const { store, close } = await openTempSqliteStore('principals');
    return { storage: store.keys, close };
  },
});

// Hosts share a SQLite file only within one process (each store another connection to it).
runKeyStorageContract({
  name: 'sqlite',
  async create(hosts) {
    const dir = await mkdtemp(join(tmpdir(), 'cyrnel-keys-'));
    const stores: Store[] = [];
    for (let i = 0; i < hosts; i++) stores.push(await openSqliteStore({ filename: join(dir, 'data.db') }));
    return {
      storages: stores.map((store) => store.keys),
      close: async () => {
        for (const store of stores) await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});

describe.skipIf(!POSTGRES_TESTS.enabled)('the key kit on PostgreSQL', () => {
  // Each host its own pool of connections, as separate servers have.
  runKeyStorageContract({
    name: 'postgres',
    async create(hosts) {
      // Migrated once, emptied between the kit's tests.
      const schema = database.schema();
      const stores: Store[] = [];
      for (let i = 0; i < hosts; i++) {
        stores.push(await openPostgresStore({ url: database.url(), schema, maxConnections: 2 }));
      }
      return {
        storages: stores.map((store) => store.keys),
        close: async () => {
          for (const store of stores) await store.close();
          await database.release(schema);
        },
      };
    },
  });
});

describe.skipIf(!POSTGRES_TESTS.enabled)('the principal kit on PostgreSQL', () => {
  runPrincipalStorageContract({
    name: 'postgres',
    async create() {
      // Migrated once, emptied between the kit's tests.
      const schema = database.schema();
      const store = await openPostgresStore({ url: database.url(), schema, maxConnections: 4 });
      return {
        storage: store.keys,
        close: async () => {
          await store.close();
          await database.release(schema);
        },
      };
    },
  });

  it('never leaves a key without its principal when a key and a deletion race on two hosts', async () => {
    const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
    const one = await openPostgresStore({ url: database.url(), schema, maxConnections: 2 });
    const two = await openPostgresStore({ url: database.url(), schema, maxConnections: 2 });
    try {
      for (let i = 0; i < 20; i++) await one.keys.insertPrincipal(newPrincipal(`p${i}`));
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          Promise.all([one.keys.insert(newKey(`k${i}`, `p${i}`)), two.keys.deletePrincipal(`p${i}`)]),
        ),
      );
      expect(outcomes).toHaveLength(20);
      for (const key of await two.keys.list({ limit: 100 })) {
        expect(await two.keys.getPrincipal(key.principalId)).toMatchObject({ keyCount: 1 });
      }
    } finally {
      await one.close();
      await two.close();
      await database.dropSchema(schema);
    }
  });
});
