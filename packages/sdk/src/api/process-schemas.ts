import { PROCESS_STATES } from '../execution';
import type { JSONSchema } from '../json-schema';
import { EFFICIENCY_SCHEMAS } from './efficiency-schemas';
import { ERROR_REASONS } from './errors';
import { labels, nullable, object, policy, ref } from './schema-builders';

type Json = JSONSchema;

/**
 * The record schemas of processes and their tool calls (`ProcessSummary`, `ProcessRecord`,
 * `ProcessResult`, `ToolCallRecord`, with the efficiency meter's), part of `RECORD_SCHEMAS`.
 */
export const PROCESS_SCHEMAS: Readonly<Record<string, Json>> = {
  ProcessSummary: object(
    [
      'id',
      'ref',
      'keyId',
      'principalId',
      'state',
      'exitState',
      'error',
      'timeoutMs',
      'createdAt',
      'updatedAt',
      'startedAt',
      'completedAt',
      'hostId',
      'labels',
      'approvalId',
      'metrics',
    ],
    {
      id: { type: 'integer', minimum: 1 },
      ref: nullable('string'),
      keyId: nullable('string'),
      principalId: nullable('string'),
      state: { enum: [...PROCESS_STATES] },
      exitState: { enum: ['success', 'failed', 'timeout', 'canceled', null] },
      error: nullable('string'),
      errorReason: { oneOf: [{ enum: Object.keys(ERROR_REASONS) }, { type: 'null' }] },
      timeoutMs: nullable('integer'),
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
      startedAt: nullable('string'),
      completedAt: nullable('string'),
      hostId: nullable('string'),
      labels,
      approvalId: nullable('string'),
      metrics: { oneOf: [ref('ProcessMetrics'), { type: 'null' }] },
    },
  ),
  ...EFFICIENCY_SCHEMAS,
  ProcessRecord: {
    allOf: [
      ref('ProcessSummary'),
      object(['envConfig', 'connections'], {
        envConfig: { type: 'object' },
        connections: { type: 'object', additionalProperties: { type: 'string' } },
      }),
    ],
  },
  ProcessResult: {
    allOf: [
      ref('ProcessRecord'),
      object(['output', 'stdout', 'stderr'], {
        output: { type: 'object' },
        stdout: { type: 'string' },
        stderr: { type: 'string' },
      }),
    ],
  },
  ToolCallRecord: object(
    [
      'serviceId',
      'toolId',
      'startedAt',
      'durationMs',
      'ok',
      'errorCode',
      'errorReason',
      'decision',
      'resultBytes',
    ],
    {
      serviceId: { type: 'string' },
      toolId: { type: 'string' },
      startedAt: { type: 'string' },
      durationMs: { type: 'number', minimum: 0 },
      ok: nullable('boolean'),
      errorCode: nullable('string'),
      errorReason: nullable('string'),
      decision: {
        oneOf: [
          object(['policy', 'rule', 'outcome'], {
            policy,
            rule: { type: 'string' },
            detail: { type: 'string' },
            outcome: { enum: ['allowed', 'approved', 'denied', 'expired', 'blocked'] },
            approvalId: { type: 'string' },
            decidedBy: nullable('string'),
            note: { type: 'string' },
          }),
          { type: 'null' },
        ],
      },
      resultBytes: {
        type: ['integer', 'null'],
        minimum: 0,
        description:
          "UTF-8 bytes of the answer's JSON delivered to the program; 0 when it failed, null while in flight",
      },
    },
  ),
};
