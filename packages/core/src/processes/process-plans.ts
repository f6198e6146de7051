import { cyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import { refuseTypeErrors } from './process-checks';
import type { ProcessParts } from './process-parts';
import { validateCreateRequest } from './validate-create-request';

/**
 * `plan`: what a program can call, found in its text by the active environment, each tool with its
 * effective policy for the key; stored as a pending plan a person approves once.
 */
export function createProcessPlans(parts: ProcessParts): ProcessesApi['plan'] {
  return async (request, options) => {
    const valid = validateCreateRequest(request, parts.limits);
    if (!valid.plan) throw cyrnelError('invalid_request', 'a plan is asked for with plan: true');
    const policies = parts.policies;
    if (!policies) throw cyrnelError('module_unavailable', 'this host has no policies to plan with');
    if (valid.typecheck === 'reject') await refuseTypeErrors(parts, valid.code);
    const found = await policies.findToolCalls(valid.code);
    if (!found)
      throw cyrnelError(
        'module_unavailable',
        'the active environment cannot find the tool calls of a program (no findToolCalls)',
      );
    const keyId = options?.keyId ?? null;
    const { tools, unknown } = await policies.calls.planTools(keyId, found);
    return policies.approvals.createPlan({ keyId, code: valid.code, tools, unknown });
  };
}
