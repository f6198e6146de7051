import type { JSONSchema } from '../json-schema';
import { ERROR_REASONS } from './errors';

type Json = JSONSchema;

/** A `$ref` to one of the {@link RECORD_SCHEMAS}. */
export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A page of a list route (`ListResponse`) of one of the {@link RECORD_SCHEMAS}. */
export const page = (item: string): Json => ({
  type: 'object',
  required: ['items', 'nextCursor', 'hasMore'],
  properties: {
    items: { type: 'array', items: ref(item) },
    nextCursor: { type: ['string', 'null'] },
    hasMore: { type: 'boolean' },
  },
});
const nullable = (type: string): Json => ({ type: [type, 'null'] });

/** An object schema with these properties, `required` of them required. */
export const object = (required: string[], properties: Json, extra: Json = {}): Json => ({
  type: 'object',
  required,
  properties,
  ...extra,
});

/** The record schemas of `@cyrnel/sdk/api`, in JSON Schema (2020-12, the dialect of OpenAPI 3.1). */
export const RECORD_SCHEMAS: Readonly<Record<string, Json>> = {
  ErrorBody: object(['error', 'code', 'reason'], {
    error: { type: 'string', description: 'What went wrong, for people' },
    code: { type: 'string', description: 'The status class (`invalid_request`, `conflict`, …)' },
    reason: {
      enum: Object.keys(ERROR_REASONS),
      description: 'The stable, specific reason: what clients branch on',
    },
    details: {
      type: 'array',
      items: object(['path', 'message'], { path: { type: 'string' }, message: { type: 'string' } }),
    },
  }),
  Health: object(['status'], { status: { const: 'ok' } }),
  RegistryOrigin: object(['url', 'name', 'version'], {
    url: { type: 'string' },
    name: { type: 'string' },
    version: { type: 'string' },
  }),
  ServiceRecord: object(
    [
      'id',
      'name',
      'description',
      'adapter',
      'enabled',
      'hash',
      'source',
      'toolCount',
      'effectivelyEnabled',
      'error',
      'createdAt',
      'updatedAt',
    ],
    {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      adapter: { type: 'string' },
      enabled: { type: 'boolean' },
      hash: { type: 'string' },
      source: nullable('string'),
      toolCount: { type: 'integer', minimum: 0 },
      adapterVersion: nullable('string'),
      registry: { oneOf: [ref('RegistryOrigin'), { type: 'null' }] },
      effectivelyEnabled: { type: 'boolean' },
      error: nullable('string'),
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    },
  ),
  ServiceDetail: {
    allOf: [
      ref('ServiceRecord'),
      object(['configSchema', 'secretsSchema'], {
        configSchema: { type: 'object' },
        secretsSchema: { type: 'object' },
      }),
    ],
  },
  ServiceUpdate: object(['updated', 'service'], {
    updated: { type: 'boolean' },
    service: ref('ServiceDetail'),
  }),
  ServiceRefresh: object(['changed', 'service'], {
    changed: { type: 'boolean' },
    service: ref('ServiceDetail'),
  }),
  ToolRecord: object(['serviceId', 'id', 'name', 'description', 'enabled', 'effectivelyEnabled'], {
    serviceId: { type: 'string' },
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    enabled: { type: 'boolean' },
    effectivelyEnabled: { type: 'boolean' },
  }),
  ToolDetail: {
    allOf: [
      ref('ToolRecord'),
      object(['inputSchema', 'outputSchema'], {
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
      }),
    ],
  },
  ModuleRecord: object(
    [
      'id',
      'name',
      'description',
      'type',
      'version',
      'isBuiltin',
      'enabled',
      'status',
      'error',
      'createdAt',
      'updatedAt',
    ],
    {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      type: { enum: ['adapter', 'environment'] },
      version: { type: 'string' },
      isBuiltin: { type: 'boolean' },
      enabled: { type: 'boolean' },
      status: { enum: ['active', 'inactive', 'draining', 'missing', 'failed'] },
      error: nullable('string'),
      origin: { oneOf: [{ type: 'object' }, { type: 'null' }] },
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    },
  ),
  ModuleDetail: {
    allOf: [
      ref('ModuleRecord'),
      object(['configSchema', 'secretsSchema'], {
        configSchema: { type: 'object' },
        secretsSchema: { type: 'object' },
      }),
    ],
  },
  ModuleUpdate: object(['updated', 'module'], { updated: { type: 'boolean' }, module: ref('ModuleDetail') }),
  ModuleReload: object(['loaded', 'skipped'], {
    loaded: { type: 'array', items: { type: 'string' } },
    skipped: {
      type: 'array',
      items: object(['dir', 'error'], { dir: { type: 'string' }, error: { type: 'string' } }),
    },
  }),
  ProcessSummary: object(
    [
      'id',
      'ref',
      'keyId',
      'state',
      'exitState',
      'error',
      'timeoutMs',
      'createdAt',
      'updatedAt',
      'startedAt',
      'completedAt',
      'hostId',
    ],
    {
      id: { type: 'integer', minimum: 1 },
      ref: nullable('string'),
      keyId: nullable('string'),
      state: { enum: ['idle', 'queued', 'running', 'terminating'] },
      exitState: { enum: ['success', 'failed', 'timeout', 'canceled', null] },
      error: nullable('string'),
      errorReason: { oneOf: [{ enum: Object.keys(ERROR_REASONS) }, { type: 'null' }] },
      timeoutMs: nullable('integer'),
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
      startedAt: nullable('string'),
      completedAt: nullable('string'),
      hostId: nullable('string'),
    },
  ),
  ProcessRecord: {
    allOf: [ref('ProcessSummary'), object(['envConfig'], { envConfig: { type: 'object' } })],
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
    ['serviceId', 'toolId', 'startedAt', 'durationMs', 'ok', 'errorCode', 'errorReason'],
    {
      serviceId: { type: 'string' },
      toolId: { type: 'string' },
      startedAt: { type: 'string' },
      durationMs: { type: 'number', minimum: 0 },
      ok: nullable('boolean'),
      errorCode: nullable('string'),
      errorReason: nullable('string'),
    },
  ),
  KeyRecord: object(['id', 'name', 'role', 'prefix', 'createdAt', 'lastUsedAt'], {
    id: { type: 'string' },
    name: { type: 'string' },
    role: { enum: ['admin', 'agent'] },
    prefix: { type: 'string' },
    createdAt: { type: 'string' },
    lastUsedAt: nullable('string'),
  }),
  CreatedKey: { allOf: [ref('KeyRecord'), object(['key'], { key: { type: 'string' } })] },
  Config: object(['config'], { config: { type: 'object' } }),
  SecretsPresence: object(['present'], { present: { type: 'array', items: { type: 'string' } } }),
  SecretsUpdated: object(['updated'], { updated: { const: true } }),
  Registries: object(['items'], { items: { type: 'array', items: { type: 'object' } } }),
};

/** A JSON Patch document (RFC 6902): the body of the config and secrets `PATCH` routes. */
export const JSON_PATCH_SCHEMA: Json = {
  type: 'array',
  description: 'A JSON Patch (RFC 6902)',
  items: object(['op', 'path'], {
    op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
    path: { type: 'string' },
    from: { type: 'string' },
    value: {},
  }),
};
