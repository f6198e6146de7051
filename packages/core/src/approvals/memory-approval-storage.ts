import type { ApprovalRow, ApprovalStorage } from './approval-storage';

/**
 * An {@link ApprovalStorage} in memory: nothing survives the process. For embedding the core
 * without a database and for the core's own tests; servers use `@cyrnel/store`.
 *
 * @example
 * ```ts
 * const approvals = createMemoryApprovalStorage();
 * await approvals.listApprovals({ state: 'pending', limit: 20 });
 * ```
 */
export function createMemoryApprovalStorage(): ApprovalStorage {
  const rows = new Map<string, ApprovalRow>();
  const newestFirst = (a: ApprovalRow, b: ApprovalRow) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;
  return {
    async insertApproval(row) {
      if (rows.has(row.id)) throw new Error(`approval ${row.id} already stored`);
      rows.set(row.id, structuredClone(row));
    },
    getApproval: async (id) => structuredClone(rows.get(id)),
    async listApprovals({ state, processId, before, limit }) {
      return [...rows.values()]
        .filter((row) => state === undefined || row.state === state)
        .filter((row) => processId === undefined || row.processId === processId)
        .filter(
          (row) =>
            !before ||
            row.createdAt < before.createdAt ||
            (row.createdAt === before.createdAt && row.id < before.id),
        )
        .sort(newestFirst)
        .slice(0, limit)
        .map((row) => structuredClone(row));
    },
    async decideApproval(id, decision, from = ['pending']) {
      const row = rows.get(id);
      if (!row || !from.includes(row.state)) return false;
      rows.set(id, {
        ...row,
        state: decision.state,
        ...(decision.at === undefined ? {} : { decidedAt: decision.at }),
        ...(decision.decidedBy === undefined ? {} : { decidedBy: decision.decidedBy }),
        ...(decision.note === undefined ? {} : { note: decision.note }),
        ...(decision.remember === undefined ? {} : { remember: decision.remember }),
        ...(decision.processId === undefined ? {} : { processId: decision.processId }),
      });
      return true;
    },
    async pruneApprovals(before) {
      let count = 0;
      for (const [id, row] of rows)
        if (row.state !== 'pending' && row.createdAt < before && rows.delete(id)) count++;
      return count;
    },
  };
}
