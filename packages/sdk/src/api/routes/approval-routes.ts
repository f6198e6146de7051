import type { ApprovalDetail, ApprovalListQuery, ApprovalRecord, DecideApprovalRequest } from '../approvals';
import { DECIDE_APPROVAL_BODY } from '../body-fields';
import type { ListResponse } from '../lists';
import { page, ref } from '../record-schemas';
import { APPROVAL_ID, defineRoute, jsonAnswer, objectBody, PAGE_QUERY, queryParams } from '../route';

/** The filters of `GET /approvals`. */
export const APPROVAL_LIST_QUERY = {
  ...PAGE_QUERY,
  state: { type: 'string' },
  processId: { type: 'string' },
} as const;

/**
 * `/approvals`: tool calls that wait for a person, and plans of whole programs. Reading and deciding
 * need an `approver` or `admin` key.
 */
export const APPROVAL_ROUTES = {
  list: defineRoute({
    method: 'GET',
    path: '/approvals',
    role: 'approver',
    summary: 'List approvals and plans, newest first',
    params: {},
    query: queryParams<ApprovalListQuery>(APPROVAL_LIST_QUERY),
    answer: jsonAnswer<ListResponse<ApprovalRecord>>(page('ApprovalRecord')),
    reasons: [],
  }),
  get: defineRoute({
    method: 'GET',
    path: '/approvals/:id',
    role: 'approver',
    summary: 'One approval or plan with the code, the line and the parameters',
    params: { id: APPROVAL_ID },
    answer: jsonAnswer<ApprovalDetail>(ref('ApprovalDetail')),
    reasons: ['approval_not_found'],
  }),
  decide: defineRoute({
    method: 'POST',
    path: '/approvals/:id',
    role: 'approver',
    summary: 'Approve or deny a call a program waits at',
    params: { id: APPROVAL_ID },
    body: objectBody<DecideApprovalRequest>(DECIDE_APPROVAL_BODY),
    answer: jsonAnswer<ApprovalDetail>(ref('ApprovalDetail')),
    reasons: ['approval_not_found', 'approval_decided'],
  }),
  decidePlan: defineRoute({
    method: 'POST',
    path: '/approvals/plans/:planId',
    role: 'approver',
    summary: 'Approve or deny the plan of a program before it runs',
    params: { planId: APPROVAL_ID },
    body: objectBody<DecideApprovalRequest>(DECIDE_APPROVAL_BODY),
    answer: jsonAnswer<ApprovalDetail>(ref('ApprovalDetail')),
    reasons: ['approval_not_found', 'approval_decided'],
  }),
};
