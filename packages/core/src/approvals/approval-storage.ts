import type { ApprovalState, PlanTool } from '@cyrnel/sdk/api';

/** An approval or a plan as stored. Timestamps are ISO strings. */
export interface ApprovalRow {
  /** Random, unguessable id (also a plan's `planId`). */
  readonly id: string;
  readonly kind: 'call' | 'plan';
  readonly state: ApprovalState;
  /** The process that waits (calls), or that used the plan (plans, once `used`). */
  readonly processId: number | null;
  /** The key whose program asks. */
  readonly keyId: string | null;
  readonly serviceId: string | null;
  readonly toolId: string | null;
  /** Why it asks: the rule that gave `ask` (`tool`, `service-default`, `data-flow`, ...). */
  readonly reason: string;
  /** The call's parameters, secrets removed (calls). */
  readonly parameters: Record<string, unknown> | null;
  /** The program's code (a plan's is what a run must match). */
  readonly code: string;
  /** 1-based line of the call, when known. */
  readonly line: number | null;
  /** A plan's content (plans). */
  readonly plan: {
    readonly codeHash: string;
    readonly tools: readonly PlanTool[];
    readonly unknown: readonly { readonly line: number; readonly text: string }[];
  } | null;
  /** The host whose run waits (calls). */
  readonly hostId: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly decidedAt: string | null;
  readonly decidedBy: string | null;
  readonly note: string | null;
  readonly remember: 'process' | 'key' | null;
}

/** A decision written over a row in one of the states `from` ({@link ApprovalStorage.decideApproval}). */
export interface ApprovalDecision {
  readonly state: ApprovalState;
  /** Written as `decidedAt` when given (a plan being used keeps the time it was approved). */
  readonly at?: string;
  readonly decidedBy?: string | null;
  readonly note?: string | null;
  readonly remember?: 'process' | 'key' | null;
  /** Set the process (a plan being used). */
  readonly processId?: number;
}

/** Filters and page of {@link ApprovalStorage.listApprovals}, newest first. */
export interface ApprovalQuery {
  readonly state?: ApprovalState;
  readonly processId?: number;
  /** Only rows strictly before this position (the cursor). */
  readonly before?: { readonly createdAt: string; readonly id: string };
  readonly limit: number;
}

/**
 * The storage port of approvals and plans. Deciding is a conditional write, so two people (or a
 * person and the expiry) deciding at once on two hosts leave exactly one decision.
 */
export interface ApprovalStorage {
  insertApproval(row: ApprovalRow): Promise<void>;
  getApproval(id: string): Promise<ApprovalRow | undefined>;
  /** A page, newest first (createdAt, then id, descending). */
  listApprovals(query: ApprovalQuery): Promise<ApprovalRow[]>;
  /**
   * Write the decision only while the row's state is one of `from` (default `['pending']`); true
   * when it was written, false when the row is unknown or already in another state.
   */
  decideApproval(id: string, decision: ApprovalDecision, from?: readonly ApprovalState[]): Promise<boolean>;
  /** Delete the rows created before `before` that are no longer pending; answers how many. */
  pruneApprovals(before: string): Promise<number>;
}
