import { createHash, randomBytes } from 'node:crypto';
import type { ModuleLogger } from '@cyrnel/sdk';
import {
  APPROVAL_STATES,
  type ApprovalDetail,
  type ApprovalRecord,
  type ApprovalState,
  DECIDE_APPROVAL_BODY,
  type ListResponse,
  type PlanResponse,
  type PlanTool,
} from '@cyrnel/sdk/api';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import { cyrnelError } from '../errors';
import { errorMessage } from '../scoped-logger';
import type { HostSignals } from '../several-hosts/host-signals';
import { timerDelay } from '../timer-delay';
import { validateBody } from '../validation/body-schema';
import { optionalString, queryObject } from '../validation/input';
import { expiredNow, toApprovalDetail, toApprovalRecord } from './approval-records';
import type { ApprovalRow, ApprovalStorage } from './approval-storage';

/** How a call's approval ended. */
export interface ApprovalOutcome {
  readonly state: 'approved' | 'denied' | 'expired';
  readonly decidedBy: string | null;
  readonly note: string | null;
  readonly remember: 'process' | 'key' | null;
}

/** A call a program waits at, as the process bindings ask for it. */
export interface AskInput {
  readonly processId: number;
  readonly keyId: string | null;
  readonly serviceId: string;
  readonly toolId: string;
  /** The rule that asked (`service-default`, `data-flow`, ...). */
  readonly reason: string;
  /** Secrets already removed. */
  readonly parameters: Record<string, unknown>;
  readonly code: string;
  readonly line: number | null;
}

/** A plan of a program, as the process API builds it. */
export interface PlanInput {
  readonly keyId: string | null;
  readonly code: string;
  readonly tools: readonly PlanTool[];
  readonly unknown: readonly { readonly line: number; readonly text: string }[];
}

/** Approvals and plans: asked by runs, decided by people, waited for by the host that runs them. */
export interface Approvals {
  /** Store a pending approval; `outcome` resolves once it is decided or expires (or `cancel`). */
  ask(input: AskInput): Promise<{ readonly id: string; readonly outcome: Promise<ApprovalOutcome> }>;
  /** The run that waited ended: the approval expires (unless decided) and its waiter is let go. */
  cancel(id: string): void;
  list(query?: unknown): Promise<ListResponse<ApprovalRecord>>;
  get(id: unknown): Promise<ApprovalDetail>;
  /** Approve or deny (`kind` says which route: a call's or a plan's); 409 `approval_decided` when it is not pending. */
  decide(
    id: unknown,
    body: unknown,
    decidedBy: string | null,
    kind: 'call' | 'plan',
  ): Promise<ApprovalDetail>;
  /** Store a pending plan. */
  createPlan(input: PlanInput): Promise<PlanResponse>;
  /**
   * Take an approved plan for a run of `code` by `keyId` (once): the qualified ids of its tools.
   * 404 `approval_not_found`; 409 `plan_mismatch` when the code, the key or the state does not fit.
   */
  takePlan(planId: unknown, code: string, keyId: string | null): Promise<ReadonlySet<string>>;
  /** Name the process that used plan `planId`. */
  planUsedBy(planId: string, processId: number): Promise<void>;
  /** A create that took plan `planId` failed before storing its process: the plan is approved again. */
  givePlanBack(planId: string): Promise<void>;
  /** Whether a person approved this tool for every process of `keyId` (until the server stops). */
  rememberedForKey(keyId: string | null, qualified: string): boolean;
  /** Approvals this host's runs wait for now (pending, undecided). */
  pending(): number;
  /** Stop waiting: every waiter is let go as expired. */
  close(): void;
}

/** Options of {@link createApprovals}. */
export interface ApprovalsOptions {
  readonly storage: ApprovalStorage;
  readonly now: () => Date;
  /** How long an approval waits for a person (`--approval-timeout`). */
  readonly timeoutMs: number;
  readonly logger: ModuleLogger;
  /** This host's id (several hosts), stored with the approvals its runs wait for. */
  readonly hostId?: string;
  /** Decisions made on other hosts arrive here (absent: the slow poll alone). */
  readonly signals?: HostSignals;
  /** How often the approvals waited for here are read again (a missed signal). Default 2000. */
  readonly pollMs?: number;
}

interface Waiter {
  readonly resolve: (outcome: ApprovalOutcome) => void;
  readonly timer: NodeJS.Timeout;
  readonly keyId: string | null;
  readonly qualified: string;
}

const STATES: readonly string[] = APPROVAL_STATES;

/** Code's SHA-256 in hex: what a plan's run must match. */
export const codeHash = (code: string) => createHash('sha256').update(code).digest('hex');

/**
 * Create the approvals service. A decision is one conditional write, so two people (or a person
 * and the expiry, or two hosts) deciding at once leave exactly one decision; the host whose run
 * waits hears it at once when it was made here, by a signal when made on another host, and by a
 * poll when a signal was lost.
 *
 * @example
 * ```ts
 * const approvals = createApprovals({ storage, now: () => new Date(), timeoutMs: 600_000, logger });
 * const { id, outcome } = await approvals.ask(input);
 * await approvals.decide(id, { decision: 'approve' }, 'k1', 'call');
 * (await outcome).state; // 'approved'
 * ```
 */
export function createApprovals(options: ApprovalsOptions): Approvals {
  const { storage, now, timeoutMs, logger } = options;
  const waiters = new Map<string, Waiter>();
  const rememberedKeys = new Map<string, Set<string>>();
  const iso = () => now().toISOString();

  const settle = (id: string, row: ApprovalRow | undefined) => {
    const waiter = waiters.get(id);
    if (!waiter || !row || row.state === 'pending') return;
    waiters.delete(id);
    clearTimeout(waiter.timer);
    const state = row.state === 'approved' || row.state === 'denied' ? row.state : 'expired';
    if (state === 'approved' && row.remember === 'key' && waiter.keyId !== null) {
      const set = rememberedKeys.get(waiter.keyId) ?? new Set();
      set.add(waiter.qualified);
      rememberedKeys.set(waiter.keyId, set);
    }
    waiter.resolve({ state, decidedBy: row.decidedBy, note: row.note, remember: row.remember });
  };
  const look = (id: string) => {
    storage.getApproval(id).then(
      (row) => settle(id, row),
      (error: unknown) =>
        logger.warn('approvals: reading a decision failed', { id, error: errorMessage(error) }),
    );
  };
  const expire = async (id: string) => {
    await storage.decideApproval(id, { state: 'expired', at: iso() }).catch(() => false);
    look(id);
  };

  const unsubscribe = options.signals?.subscribe('approval', (payload) => {
    if (payload === null) for (const id of waiters.keys()) look(id);
    else if (waiters.has(payload)) look(payload);
  });
  const poll = setInterval(() => {
    for (const id of waiters.keys()) look(id);
  }, options.pollMs ?? 2000);
  poll.unref();

  /** A new pending row: what is not given is null, it expires `timeoutMs` from now. */
  const pending = (
    id: string,
    kind: ApprovalRow['kind'],
    fields: Partial<ApprovalRow> & Pick<ApprovalRow, 'keyId' | 'reason' | 'code'>,
  ): ApprovalRow => {
    const created = now();
    return {
      id,
      kind,
      state: 'pending',
      processId: null,
      serviceId: null,
      toolId: null,
      parameters: null,
      line: null,
      plan: null,
      hostId: null,
      decidedAt: null,
      decidedBy: null,
      note: null,
      remember: null,
      ...fields,
      createdAt: created.toISOString(),
      expiresAt: new Date(created.getTime() + timeoutMs).toISOString(),
    };
  };

  const find = async (rawId: unknown): Promise<ApprovalRow> => {
    const id = typeof rawId === 'string' ? rawId : '';
    const row = id.length > 0 && id.length <= 100 ? await storage.getApproval(id) : undefined;
    if (!row) throw cyrnelError('approval_not_found', `approval ${id.slice(0, 100)} not found`);
    if (expiredNow(row, iso())) {
      await storage.decideApproval(row.id, { state: 'expired', at: iso() });
      return (await storage.getApproval(row.id)) ?? row;
    }
    return row;
  };

  return {
    pending: () => waiters.size,
    async ask(input) {
      const id = `ap_${randomBytes(12).toString('base64url')}`;
      const row = pending(id, 'call', {
        processId: input.processId,
        keyId: input.keyId,
        serviceId: input.serviceId,
        toolId: input.toolId,
        reason: input.reason,
        parameters: input.parameters,
        code: input.code,
        line: input.line,
        hostId: options.hostId ?? null,
      });
      await storage.insertApproval(row);
      const outcome = new Promise<ApprovalOutcome>((resolve) => {
        const timer = setTimeout(() => void expire(id), timerDelay(timeoutMs));
        waiters.set(id, {
          resolve,
          timer,
          keyId: input.keyId,
          qualified: `${input.serviceId}.${input.toolId}`,
        });
      });
      return { id, outcome };
    },

    cancel(id) {
      if (!waiters.has(id)) return;
      void expire(id);
    },

    async list(rawQuery) {
      const query = queryObject(rawQuery);
      const limit = pageLimit(query.limit);
      const state = optionalString(query.state, 'state');
      if (state !== undefined && !STATES.includes(state))
        throw cyrnelError('invalid_request', `state must be one of ${STATES.join(', ')}`, {
          details: [{ path: 'state', message: `unknown state ${state.slice(0, 100)}` }],
        });
      const processText = optionalString(query.processId, 'processId');
      const processId = processText === undefined ? undefined : Number(processText);
      if (processId !== undefined && !(Number.isSafeInteger(processId) && processId > 0))
        throw cyrnelError('invalid_request', 'processId must be a positive integer', {
          details: [{ path: 'processId', message: 'not a positive integer' }],
        });
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 2);
      const rows = await storage.listApprovals({
        ...(state === undefined ? {} : { state: state as ApprovalState }),
        ...(processId === undefined ? {} : { processId }),
        ...(cursor ? { before: { createdAt: cursor[0] as string, id: cursor[1] as string } } : {}),
        limit: limit + 1,
      });
      const at = iso();
      return toPage(
        rows,
        limit,
        (row) => [row.createdAt, row.id],
        (row) => toApprovalRecord(expiredNow(row, at) ? { ...row, state: 'expired' } : row),
      );
    },

    get: async (id) => toApprovalDetail(await find(id)),

    async decide(rawId, body, decidedBy, kind) {
      const fields = validateBody<{ decision: unknown; note?: unknown; remember?: unknown }>(
        body,
        DECIDE_APPROVAL_BODY,
      );
      if (fields.decision !== 'approve' && fields.decision !== 'deny')
        throw cyrnelError('invalid_request', "decision must be 'approve' or 'deny'", {
          details: [{ path: 'decision', message: 'not approve or deny' }],
        });
      const remember = fields.remember ?? null;
      if (remember !== null && remember !== 'process' && remember !== 'key')
        throw cyrnelError('invalid_request', "remember must be 'process' or 'key'", {
          details: [{ path: 'remember', message: 'not process or key' }],
        });
      const row = await find(rawId);
      if (row.kind !== kind) throw cyrnelError('approval_not_found', `${kind} ${row.id} not found`);
      if (remember !== null && kind === 'plan')
        throw cyrnelError('invalid_request', 'remember applies to calls only', {
          details: [{ path: 'remember', message: 'not for plans' }],
        });
      const state = fields.decision === 'approve' ? 'approved' : 'denied';
      const decided = await storage.decideApproval(row.id, {
        state,
        at: iso(),
        decidedBy,
        note: typeof fields.note === 'string' ? fields.note : null,
        remember: state === 'approved' ? remember : null,
      });
      if (!decided) {
        const now = await storage.getApproval(row.id);
        throw cyrnelError('approval_decided', `approval ${row.id} is already ${now?.state ?? 'gone'}`);
      }
      const after = await find(row.id);
      settle(row.id, after);
      await options.signals?.publish('approval', row.id).catch(() => undefined);
      return toApprovalDetail(after);
    },

    async createPlan(input) {
      const id = `pl_${randomBytes(12).toString('base64url')}`;
      const hash = codeHash(input.code);
      const row = pending(id, 'plan', {
        keyId: input.keyId,
        reason: 'plan',
        code: input.code,
        plan: { codeHash: hash, tools: input.tools, unknown: input.unknown },
      });
      await storage.insertApproval(row);
      return {
        planId: id,
        state: 'pending',
        codeHash: hash,
        tools: input.tools.map((tool) => ({ ...tool })),
        unknown: input.unknown.map((site) => ({ ...site })),
        expiresAt: row.expiresAt,
      };
    },

    async takePlan(planId, code, keyId) {
      const row = await find(planId);
      if (row.kind !== 'plan' || !row.plan)
        throw cyrnelError('approval_not_found', `plan ${row.id} not found`);
      const mismatch = (why: string) => cyrnelError('plan_mismatch', `plan ${row.id}: ${why}`);
      if (row.keyId !== keyId) throw mismatch('it was made by another key');
      if (row.plan.codeHash !== codeHash(code)) throw mismatch('the code differs from the planned code');
      if (row.state !== 'approved') throw mismatch(`it is ${row.state}, not approved`);
      if (!(await storage.decideApproval(row.id, { state: 'used' }, ['approved'])))
        throw mismatch('it was used by another process');
      return new Set(row.plan.tools.map((tool) => `${tool.serviceId}.${tool.toolId}`));
    },

    async givePlanBack(planId) {
      await storage.decideApproval(planId, { state: 'approved' }, ['used']);
    },

    async planUsedBy(planId, processId) {
      await storage.decideApproval(planId, { state: 'used', processId }, ['used']);
    },

    rememberedForKey: (keyId, qualified) =>
      keyId !== null && (rememberedKeys.get(keyId)?.has(qualified) ?? false),

    close() {
      clearInterval(poll);
      unsubscribe?.();
      for (const [id, waiter] of waiters) {
        clearTimeout(waiter.timer);
        waiter.resolve({ state: 'expired', decidedBy: null, note: null, remember: null });
        waiters.delete(id);
      }
    },
  };
}
