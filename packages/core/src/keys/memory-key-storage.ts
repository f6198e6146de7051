import type { KeyRow, KeyStorage } from './key-storage';
import type { PrincipalListRow, PrincipalRow } from './principal-storage';

type Ordered = { readonly createdAt: string; readonly id: string };

const order = (a: Ordered, b: Ordered) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1;

/** Rows of `rows` after `after`, oldest first, at most `limit`. */
function pageOf<T extends Ordered>(rows: Iterable<T>, after: Ordered | undefined, limit: number): T[] {
  return [...rows]
    .sort(order)
    .filter(
      (row) =>
        !after || row.createdAt > after.createdAt || (row.createdAt === after.createdAt && row.id > after.id),
    )
    .slice(0, limit);
}

/**
 * A {@link KeyStorage} in memory: nothing survives the process. For embedding the core without a
 * database and for the core's own tests; servers use `@cyrnel/store`.
 */
export function createMemoryKeyStorage(): KeyStorage {
  const rows = new Map<string, KeyRow>();
  const principals = new Map<string, PrincipalRow>();
  const withCount = (row: PrincipalRow): PrincipalListRow => ({
    ...row,
    keyCount: [...rows.values()].filter((key) => key.principalId === row.id).length,
  });
  return {
    async insert(row, principal) {
      if (rows.has(row.id) || [...rows.values()].some((other) => other.hash === row.hash)) {
        throw new Error('duplicate key id or hash');
      }
      if (principal && principals.has(principal.id)) throw new Error('duplicate principal id');
      if (!principals.has(row.principalId) && principal?.id !== row.principalId) {
        throw new Error('unknown principal');
      }
      if (principal) principals.set(principal.id, { ...principal });
      rows.set(row.id, { ...row });
    },
    findByHash: async (hash) => [...rows.values()].find((row) => row.hash === hash),
    get: async (id) => rows.get(id),
    list: async ({ after, limit }) => pageOf(rows.values(), after, limit),
    count: async (filter) =>
      [...rows.values()].filter((row) => filter?.role === undefined || row.role === filter.role).length,
    async touch(id, at) {
      const row = rows.get(id);
      if (row) rows.set(id, { ...row, lastUsedAt: at });
    },
    async delete(id, options) {
      const row = rows.get(id);
      if (!row) return 'not_found';
      if (options?.keepAnAdmin && row.role === 'admin') {
        const admins = [...rows.values()].filter((other) => other.role === 'admin').length;
        if (admins <= 1) return 'last_admin';
      }
      rows.delete(id);
      return 'deleted';
    },

    async insertPrincipal(row) {
      if (principals.has(row.id)) throw new Error('duplicate principal id');
      if (
        row.externalSubject !== undefined &&
        [...principals.values()].some((p) => p.externalSubject === row.externalSubject)
      )
        throw new Error('duplicate principal subject');
      principals.set(row.id, { ...row });
    },
    async getPrincipal(id) {
      const row = principals.get(id);
      return row && withCount(row);
    },
    async findPrincipalBySubject(subject) {
      const row = [...principals.values()].find((principal) => principal.externalSubject === subject);
      return row && withCount(row);
    },
    listPrincipals: async ({ after, limit }) => pageOf(principals.values(), after, limit).map(withCount),
    async deletePrincipal(id) {
      if (!principals.has(id)) return 'not_found';
      if ([...rows.values()].some((key) => key.principalId === id)) return 'has_keys';
      principals.delete(id);
      return 'deleted';
    },
  };
}
