/** Row of `approvals` (migration 0016): calls and plans people decide. JSON columns are text. */
export interface ApprovalsTable {
  id: string;
  kind: string;
  state: string;
  process_id: number | null;
  key_id: string | null;
  service_id: string | null;
  tool_id: string | null;
  reason: string;
  /** JSON of the call's parameters, secrets removed; null for plans. */
  parameters: string | null;
  code: string;
  line: number | null;
  /** JSON of a plan's `{ codeHash, tools, unknown }`; null for calls. */
  plan: string | null;
  host_id: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  note: string | null;
  remember: string | null;
}

/** The tables of the approval store. */
export interface ApprovalTables {
  approvals: ApprovalsTable;
}
