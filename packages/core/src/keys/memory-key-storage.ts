import type { KeyRow, KeyStorage } from './key-storage';

/**
 * A {@link KeyStorage} in memory: nothing survives the process. For embedding the core without a
 * database and for the core's own tests; servers use `@cyrnel/store`.
 */
export function createMemoryKeyStorage(): KeyStorage {
  const rows = new Map<string, KeyRow>();
  const order = (a: KeyRow, b: KeyRow) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1;
  return {
    async insert(row) {
      if (rows.has(row.id) || [...rows.values()].some((other) => other.hash === row.hash)) {
        throw new Error('duplicate key id or hash');
      }
      rows.set(row.id, { ...row });
    },
    findByHash: async (hash) => [...rows.values()].find((row) => row.hash === hash),
    get: async (id) => rows.get(id),
    async list({ after, limit }) {
      return [...rows.values()]
        .sort(order)
        .filter(
          (row) =>
            !after ||
            row.createdAt > after.createdAt ||
            (row.createdAt === after.createdAt && row.id > after.id),
        )
        .slice(0, limit);
    },
    count: async () => rows.size,
    async touch(id, at) {
      const row = rows.get(id);
      if (row) rows.set(id, { ...row, lastUsedAt: at });
    },
    delete: async (id) => rows.delete(id),
  };
}
