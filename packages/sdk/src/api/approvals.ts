import type { ToolLabel, ToolPolicy } from '../tool-policy';
import type { PageQuery } from './lists';

/** The states of an approval: `pending` until a person decides or it expires; a plan becomes `used` when its process starts. */
export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired', 'used'] as const;

/** One of {@link APPROVAL_STATES}. */
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** One tool of a plan: where the code calls it and what its policy is. */
export interface PlanTool {
  serviceId: string;
  toolId: string;
  /** Its effective policy for the key that made the plan. */
  effectivePolicy: ToolPolicy;
  /** Its data-flow labels. */
  labels: ToolLabel[];
  /** 1-based lines of the calls. */
  lines: number[];
  /** False when no such tool is installed (the call would fail `tool_not_found`). */
  known: boolean;
}

/**
 * An approval as `GET /approvals` lists it: a call a running program waits at (`kind: 'call'`),
 * or a plan of a whole program before it runs (`kind: 'plan'`).
 */
export interface ApprovalRecord {
  /** Approval id (a plan's id is its `planId`). */
  id: string;
  kind: 'call' | 'plan';
  state: ApprovalState;
  /** The process that waits (calls only). */
  processId: number | null;
  /** The key whose program asks. */
  keyId: string | null;
  /** The tool called (calls only). */
  serviceId: string | null;
  toolId: string | null;
  /** The policy that asked: `ask`, or the data-flow rule's. */
  reason: string;
  /** ISO timestamps. */
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  /** The key that decided (null: undecided, or the bootstrap key). */
  decidedBy: string | null;
  note: string | null;
  /** What the approval remembers: for this process, for this key, or nothing. */
  remember: 'process' | 'key' | null;
}

/** `GET /approvals/:id`: the record with what a person needs to decide. */
export interface ApprovalDetail extends ApprovalRecord {
  /** The call's parameters, secrets removed (calls only). */
  parameters: Record<string, unknown> | null;
  /** The program's code. */
  code: string;
  /** 1-based line of the call in `code`, when it is known. */
  line: number | null;
  /** A plan's tools (plans only). */
  tools: PlanTool[] | null;
  /** A plan's call sites whose tool is computed at run time (plans only). */
  unknown: { line: number; text: string }[] | null;
}

/** Filters of `GET /approvals` (newest first). */
export interface ApprovalListQuery extends PageQuery {
  /** Only this state. */
  state?: ApprovalState;
  /** Only approvals of this process. */
  processId?: string;
}

/** `POST /approvals/:id` and `POST /approvals/plans/:planId`. */
export interface DecideApprovalRequest {
  decision: 'approve' | 'deny';
  /** Why, kept with the decision in the audit (at most 1,000 characters). */
  note?: string;
  /**
   * Approve the same tool without asking again: for the rest of this process (`process`) or for
   * every later process of the same key (`key`, until the server restarts). Calls only.
   */
  remember?: 'process' | 'key';
}

/** `POST /processes` with `plan: true`: what the code can call, before anything runs. */
export interface PlanResponse {
  /** Approve with `POST /approvals/plans/:planId`, then run with `POST /processes {code, planId}`. */
  planId: string;
  state: ApprovalState;
  /** SHA-256 (hex) of the code; a run with any other code is refused (`plan_mismatch`). */
  codeHash: string;
  tools: PlanTool[];
  unknown: { line: number; text: string }[];
  /** ISO timestamp: an undecided plan expires, like an approval. */
  expiresAt: string;
}
