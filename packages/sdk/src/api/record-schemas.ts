import type { JSONSchema } from '../json-schema';
import { TOOL_ANNOTATIONS, TOOL_POLICIES } from '../tool-policy';
import { ACCESS_SCHEMAS } from './access-schemas';
import { APPROVAL_STATES } from './approvals';
import { ERROR_REASONS } from './errors';
import { IDENTITY_SCHEMA } from './identity';
import { LOG_LINE_SCHEMA } from './logs';
import { PROCESS_SCHEMAS } from './process-schemas';
import { annotations, labels, nullable, object, policy, policyMap, ref } from './schema-builders';

type Json = JSONSchema;

export { object, page, ref } from './schema-builders';

const lineText: Json = object(['line', 'text'], { line: { type: 'integer' }, text: { type: 'string' } });
const planTool: Json = object(['serviceId', 'toolId', 'effectivePolicy', 'labels', 'lines', 'known'], {
  serviceId: { type: 'string' },
  toolId: { type: 'string' },
  effectivePolicy: policy,
  labels,
  lines: { type: 'array', items: { type: 'integer' } },
  known: { type: 'boolean' },
});

const typeDiagnostic: Json = object(['line', 'column', 'message', 'code'], {
  line: { type: 'integer', minimum: 1, description: '1-based line in the submitted code' },
  column: { type: 'integer', minimum: 1, description: '1-based column in that line' },
  message: { type: 'string' },
  code: { type: 'integer', description: "TypeScript's error code (2339, 2322, 1005, …)" },
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
      description:
        'Validation issues (`{path, message}`); for `type_error`, the type errors (`TypeCheckResponse.diagnostics`)',
      items: {
        anyOf: [
          object(['path', 'message'], { path: { type: 'string' }, message: { type: 'string' } }),
          typeDiagnostic,
        ],
      },
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
      'observeOutputs',
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
      observeOutputs: {
        type: 'boolean',
        description: 'cyrnel learns the shape of the results of its tools without an output schema',
      },
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
  ToolRecord: object(
    [
      'serviceId',
      'id',
      'name',
      'description',
      'enabled',
      'effectivelyEnabled',
      'annotations',
      'labels',
      'policy',
      'effectivePolicy',
    ],
    {
      serviceId: { type: 'string' },
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      enabled: { type: 'boolean' },
      effectivelyEnabled: { type: 'boolean' },
      annotations,
      labels,
      policy: { enum: [...TOOL_POLICIES, null] },
      effectivePolicy: policy,
    },
  ),
  ServicePolicy: object([], {
    default: policy,
    byAnnotation: {
      type: 'object',
      properties: Object.fromEntries(TOOL_ANNOTATIONS.map((name) => [name, policy])),
      additionalProperties: false,
    },
    tools: policyMap,
    labels: { type: 'object', additionalProperties: labels },
    dataFlow: { enum: ['ask', 'block'] },
  }),
  ApprovalRecord: object(
    [
      'id',
      'kind',
      'state',
      'processId',
      'keyId',
      'serviceId',
      'toolId',
      'reason',
      'createdAt',
      'expiresAt',
      'decidedAt',
      'decidedBy',
      'note',
      'remember',
    ],
    {
      id: { type: 'string' },
      kind: { enum: ['call', 'plan'] },
      state: { enum: [...APPROVAL_STATES] },
      processId: nullable('integer'),
      keyId: nullable('string'),
      serviceId: nullable('string'),
      toolId: nullable('string'),
      reason: { type: 'string' },
      createdAt: { type: 'string' },
      expiresAt: { type: 'string' },
      decidedAt: nullable('string'),
      decidedBy: nullable('string'),
      note: nullable('string'),
      remember: { enum: ['process', 'key', null] },
    },
  ),
  ApprovalDetail: {
    allOf: [
      ref('ApprovalRecord'),
      object(['parameters', 'code', 'line', 'tools', 'unknown'], {
        parameters: nullable('object'),
        code: { type: 'string' },
        line: nullable('integer'),
        tools: { oneOf: [{ type: 'array', items: planTool }, { type: 'null' }] },
        unknown: { oneOf: [{ type: 'array', items: lineText }, { type: 'null' }] },
      }),
    ],
  },
  PlanResponse: object(['planId', 'state', 'codeHash', 'tools', 'unknown', 'expiresAt'], {
    planId: { type: 'string' },
    state: { enum: [...APPROVAL_STATES] },
    codeHash: { type: 'string' },
    tools: { type: 'array', items: planTool },
    unknown: { type: 'array', items: lineText },
    expiresAt: { type: 'string' },
  }),
  TypeCheckResponse: object(['diagnostics'], {
    diagnostics: {
      type: 'array',
      maxItems: 100,
      description: 'Syntax errors when the code has any, else its type errors; in the order of the text',
      items: typeDiagnostic,
    },
  }),
  ToolDetail: {
    allOf: [
      ref('ToolRecord'),
      object(['inputSchema', 'outputSchema', 'observedOutputSchema'], {
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        observedOutputSchema: {
          type: ['object', 'null'],
          description:
            'For a tool whose outputSchema says nothing: the shape of the results seen (types only; may be incomplete)',
        },
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
  ...PROCESS_SCHEMAS,
  ...ACCESS_SCHEMAS,
  Config: object(['config'], { config: { type: 'object' } }),
  SecretsPresence: object(['present'], { present: { type: 'array', items: { type: 'string' } } }),
  SecretsUpdated: object(['updated'], { updated: { const: true } }),
  Registries: object(['items'], { items: { type: 'array', items: { type: 'object' } } }),
  LogLine: LOG_LINE_SCHEMA,
  Identity: IDENTITY_SCHEMA,
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
