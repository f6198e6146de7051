import type { ToolCallRecord } from '@cyrnel/sdk/api';
import type { NewProcess } from '../index';

/** The time the contract's records are made at. */
export const AT = '2026-01-01T00:00:00.000Z';

/** A process as the manager inserts it, with `fields` over the defaults. */
export function newProcess(fields: Partial<NewProcess> = {}): NewProcess {
  return {
    ref: null,
    keyId: null,
    code: 'cyrnel.output({ ok: true })',
    state: 'idle',
    timeoutMs: null,
    envConfig: {},
    createdAt: AT,
    ...fields,
  };
}

/** A call the contract's records hold: denied after an approval, with every field set. */
export const CALL: ToolCallRecord = {
  serviceId: 'shop',
  toolId: 'getUser',
  startedAt: AT,
  durationMs: 12,
  ok: false,
  errorCode: 'conflict',
  errorReason: 'tool_disabled',
  decision: {
    policy: 'ask',
    rule: 'service-default',
    outcome: 'approved',
    approvalId: 'ap1',
    decidedBy: 'k2',
    note: 'ok',
  },
  resultBytes: 0,
};
