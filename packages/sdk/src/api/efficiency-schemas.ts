import type { JSONSchema } from '../json-schema';

type Json = JSONSchema;

const record = (required: string[], properties: Json): Json => ({ type: 'object', required, properties });

/**
 * The record schemas of the efficiency meter (`ProcessMetrics`, `ServiceStats`), part of
 * `RECORD_SCHEMAS`.
 */
export const EFFICIENCY_SCHEMAS: Readonly<Record<string, Json>> = {
  ProcessMetrics: record(['toolCalls', 'toolResultBytes', 'returnedBytes', 'wallMs', 'cpuMs'], {
    toolCalls: { type: 'integer', minimum: 0 },
    toolResultBytes: {
      type: 'integer',
      minimum: 0,
      description: "UTF-8 bytes of the tool answers' JSON delivered into the sandbox, counted by the host",
    },
    returnedBytes: {
      type: 'integer',
      minimum: 0,
      description: 'UTF-8 bytes of the output JSON, stdout and stderr handed back to the model',
    },
    wallMs: { type: 'number', minimum: 0, description: "The run's wall time on the host's clock" },
    cpuMs: {
      type: ['number', 'null'],
      minimum: 0,
      description: 'CPU time the sandbox reports (at most wallMs); null when it reports none',
    },
  }),
  ServiceStats: record(
    [
      'serviceId',
      'runs',
      'toolCalls',
      'toolResultBytes',
      'returnedBytes',
      'wallMs',
      'cpuMs',
      'ratio',
      'firstRunAt',
      'lastRunAt',
    ],
    {
      serviceId: { type: 'string' },
      runs: { type: 'integer', minimum: 0, description: 'Ended runs still stored that called the service' },
      toolCalls: { type: 'integer', minimum: 0 },
      toolResultBytes: { type: 'integer', minimum: 0 },
      returnedBytes: { type: 'integer', minimum: 0 },
      wallMs: { type: 'number', minimum: 0 },
      cpuMs: { type: ['number', 'null'], minimum: 0 },
      ratio: {
        type: ['number', 'null'],
        description: 'toolResultBytes / returnedBytes; null when either is 0',
      },
      firstRunAt: { type: ['string', 'null'] },
      lastRunAt: { type: ['string', 'null'] },
    },
  ),
};
