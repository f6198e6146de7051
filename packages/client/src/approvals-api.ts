import {
  API_ROUTES,
  type ApprovalDetail,
  type ApprovalListQuery,
  type ApprovalRecord,
  type DecideApprovalRequest,
  type ListResponse,
} from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/**
 * `/approvals` endpoints: tool calls a running program waits at, and plans of whole programs
 * (approver and admin keys).
 */
export interface ApprovalsApi {
  /**
   * `GET /approvals`: one page, newest first.
   *
   * @example
   * ```ts
   * const { items } = await client.approvals.list({ state: 'pending' });
   * ```
   */
  list(query?: ApprovalListQuery, options?: RequestOptions): Promise<ListResponse<ApprovalRecord>>;
  /** Every approval matching `query`, newest first, page after page. */
  iterate(
    query?: ApprovalListQuery,
    options?: RequestOptions,
  ): AsyncGenerator<ApprovalRecord, void, undefined>;
  /** `GET /approvals/:id`: the record with the program's code, the call's line and its parameters (or a plan's tools). */
  get(id: string, options?: RequestOptions): Promise<ApprovalDetail>;
  /**
   * `POST /approvals/:id`: approve or deny a call a program waits at; the program goes on at once
   * (a denied call throws `approval_denied` in it). A decided approval is a 409 `approval_decided`.
   *
   * @example
   * ```ts
   * await client.approvals.decide(approvalId, { decision: 'approve', note: 'ok once', remember: 'process' });
   * ```
   */
  decide(id: string, request: DecideApprovalRequest, options?: RequestOptions): Promise<ApprovalDetail>;
  /**
   * `POST /approvals/plans/:planId`: approve or deny the plan of a program before it runs
   * (`processes.plan()` makes one; `processes.create({ code, planId })` runs it once approved).
   *
   * @example
   * ```ts
   * const plan = await agent.processes.plan(code);
   * await approver.approvals.decidePlan(plan.planId, { decision: 'approve' });
   * const { output } = await agent.processes.run(code, { planId: plan.planId });
   * ```
   */
  decidePlan(
    planId: string,
    request: DecideApprovalRequest,
    options?: RequestOptions,
  ): Promise<ApprovalDetail>;
}

const routes = API_ROUTES.approvals;

/** Build the `approvals` group over the route caller. */
export function createApprovalsApi(call: RouteCaller): ApprovalsApi {
  const list: ApprovalsApi['list'] = (query, options) => call(routes.list, { query }, options);
  return {
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    get: (id, options) => call(routes.get, { params: { id } }, options),
    decide: (id, request, options) => call(routes.decide, { params: { id }, body: request }, options),
    decidePlan: (planId, request, options) =>
      call(routes.decidePlan, { params: { planId }, body: request }, options),
  };
}
