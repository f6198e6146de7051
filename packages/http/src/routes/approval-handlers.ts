import type { APPROVAL_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import { hostValidates, type RouteHandlers } from './route-handler';

/**
 * The handlers of `/approvals`: an `approver` or `admin` key reads every approval and plan, and its
 * decision records the caller's stored key as who decided (null for the bootstrap key and an open
 * server). The host checks the decision body.
 */
export function approvalHandlers({ host }: RouteContext): RouteHandlers<typeof APPROVAL_ROUTES> {
  return {
    list: async ({ query }) => host.approvals.list(query),
    get: async ({ params }) => host.approvals.get(params.id),
    decide: hostValidates(async ({ caller, params, body }) =>
      host.approvals.decide(params.id, body, { keyId: caller.keyId }),
    ),
    decidePlan: hostValidates(async ({ caller, params, body }) =>
      host.approvals.decidePlan(params.planId, body, { keyId: caller.keyId }),
    ),
  };
}
