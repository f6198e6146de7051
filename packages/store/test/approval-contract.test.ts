import { randomBytes } from 'node:crypto';
import { newApproval, runApprovalStorageContract } from '@cyrnel/core/testing';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/postgres/index';
import { POSTGRES_TESTS, useFileDatabase } from './support/postgres';
import { openTempSqliteStore } from './support/temp-dirs';

const database = useFileDatabase();

runApprovalStorageContract({
  name: 'sqlite',
  async create() {
    const { store, close } = await openTempSqliteStore('approvals');
    return { storage: store.approvals, close };
  },
});

describe.skipIf(!POSTGRES_TESTS.enabled)('the approval kit on PostgreSQL', () => {
  runApprovalStorageContract({
    name: 'postgres',
    async create() {
      // Migrated once, emptied between the kit's tests.
      const schema = database.schema();
      const store = await openPostgresStore({ url: database.url(), schema, maxConnections: 4 });
      return {
        storage: store.approvals,
        close: async () => {
          await store.close();
          await database.release(schema);
        },
      };
    },
  });

  it('leaves one decision when two hosts decide at once, each on its own connections', async () => {
    const schema = `cyrnel_t_${randomBytes(6).toString('hex')}`;
    const one = await openPostgresStore({ url: database.url(), schema, maxConnections: 2 });
    const two = await openPostgresStore({ url: database.url(), schema, maxConnections: 2 });
    try {
      const at = '2026-01-01T00:01:00.000Z';
      for (let i = 0; i < 20; i++) await one.approvals.insertApproval(newApproval(`a${i}`));
      const decided = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          Promise.all([
            one.approvals.decideApproval(`a${i}`, { state: 'approved', at, decidedBy: 'k1' }),
            two.approvals.decideApproval(`a${i}`, { state: 'expired', at }),
          ]),
        ),
      );
      for (const [i, pair] of decided.entries()) {
        expect(pair.filter(Boolean)).toHaveLength(1);
        const row = await two.approvals.getApproval(`a${i}`);
        expect(row?.state).toBe(pair[0] ? 'approved' : 'expired');
        expect(row?.decidedBy).toBe(pair[0] ? 'k1' : null);
      }
    } finally {
      await one.close();
      await two.close();
      await database.dropSchema(schema);
    }
  });
});
