import type { ApprovalDetail, ApprovalRecord } from '@cyrnel/sdk/api';
import type { ApprovalRow } from './approval-storage';

/** A row as `GET /approvals` lists it. */
export function toApprovalRecord(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    processId: row.processId,
    keyId: row.keyId,
    serviceId: row.serviceId,
    toolId: row.toolId,
    reason: row.reason,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    decidedAt: row.decidedAt,
    decidedBy: row.decidedBy,
    note: row.note,
    remember: row.remember,
  };
}

/** A row as `GET /approvals/:id` answers it. */
export function toApprovalDetail(row: ApprovalRow): ApprovalDetail {
  return {
    ...toApprovalRecord(row),
    parameters: row.parameters,
    code: row.code,
    line: row.line,
    tools: row.plan
      ? row.plan.tools.map((tool) => ({ ...tool, labels: [...tool.labels], lines: [...tool.lines] }))
      : null,
    unknown: row.plan ? row.plan.unknown.map((site) => ({ ...site })) : null,
  };
}

/** A pending row past its expiry reads as expired (the expiry is written by whoever looks first). */
export function expiredNow(row: ApprovalRow, at: string): boolean {
  return row.state === 'pending' && row.expiresAt <= at;
}
