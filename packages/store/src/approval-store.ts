import type { ApprovalRow, ApprovalStorage } from '@cyrnel/core';
import type { ApprovalState } from '@cyrnel/sdk/api';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ApprovalsTable } from './approval-tables';
import type { Database } from './database';
import { parseObject } from './sql-helpers';

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

function toRow(row: Selectable<ApprovalsTable>): ApprovalRow {
  return {
    id: row.id,
    kind: row.kind as ApprovalRow['kind'],
    state: row.state as ApprovalState,
    processId: row.process_id === null ? null : Number(row.process_id),
    keyId: row.key_id,
    serviceId: row.service_id,
    toolId: row.tool_id,
    reason: row.reason,
    parameters: row.parameters === null ? null : parseObject(row.parameters),
    code: row.code,
    line: row.line === null ? null : Number(row.line),
    plan: row.plan === null ? null : (JSON.parse(row.plan) as ApprovalRow['plan']),
    hostId: row.host_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    note: row.note,
    remember: row.remember as ApprovalRow['remember'],
  };
}

/**
 * The approval storage port (`ApprovalStorage` of `@cyrnel/core`) over the `approvals` table of
 * migration 0016. A decision is one conditional `UPDATE` (`WHERE id = ? AND state IN (...)`): of
 * two deciding at once, on one host or two, the second finds the state changed and writes nothing.
 *
 * @example
 * ```ts
 * const approvals = createApprovalStore(db);
 * await approvals.decideApproval(id, { state: 'approved', at: new Date().toISOString() });
 * ```
 */
export function createApprovalStore(db: Kysely<Database>): ApprovalStorage {
  return {
    async insertApproval(row) {
      await db
        .insertInto('approvals')
        .values({
          id: row.id,
          kind: row.kind,
          state: row.state,
          process_id: row.processId,
          key_id: row.keyId,
          service_id: row.serviceId,
          tool_id: row.toolId,
          reason: row.reason,
          parameters: json(row.parameters),
          code: row.code,
          line: row.line,
          plan: json(row.plan),
          host_id: row.hostId,
          created_at: row.createdAt,
          expires_at: row.expiresAt,
          decided_at: row.decidedAt,
          decided_by: row.decidedBy,
          note: row.note,
          remember: row.remember,
        })
        .execute();
    },

    async getApproval(id) {
      const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRow(row);
    },

    async listApprovals({ state, processId, before, limit }) {
      let query = db.selectFrom('approvals').selectAll();
      if (state !== undefined) query = query.where('state', '=', state);
      if (processId !== undefined) query = query.where('process_id', '=', processId);
      if (before) {
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '<', before.createdAt),
            eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
          ]),
        );
      }
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toRow);
    },

    async decideApproval(id, decision, from = ['pending']) {
      if (from.length === 0) return false;
      const columns: Updateable<ApprovalsTable> = { state: decision.state };
      if (decision.at !== undefined) columns.decided_at = decision.at;
      if (decision.decidedBy !== undefined) columns.decided_by = decision.decidedBy;
      if (decision.note !== undefined) columns.note = decision.note;
      if (decision.remember !== undefined) columns.remember = decision.remember;
      if (decision.processId !== undefined) columns.process_id = decision.processId;
      const result = await db
        .updateTable('approvals')
        .set(columns)
        .where('id', '=', id)
        .where('state', 'in', [...from])
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async pruneApprovals(before) {
      const result = await db
        .deleteFrom('approvals')
        .where('state', '!=', 'pending')
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
