import { type BodySchema, REQUEST_BODIES } from '@cyrnel/core';
import { ERROR_REASONS, ERROR_STATUS, type ErrorReason } from '@cyrnel/sdk/api';
import { AGENT_ROUTES } from './middleware/role-guard';
import { MODULE_LIST_QUERY } from './routes/module-routes';
import { PROCESS_LIST_QUERY } from './routes/process-routes';
import { SERVICE_LIST_QUERY } from './routes/service-routes';
import { TOOL_LIST_QUERY } from './routes/tool-routes';
import { PAGE_QUERY, type QuerySchema } from './validation/query';

type Json = Record<string, unknown>;
type Method = 'get' | 'post' | 'patch' | 'delete';

/** What a route answers on success: a component schema, text, an event stream or nothing. */
type Answer = { readonly status: number; readonly schema: Json | 'text' | 'events' | 'none' };

interface Route {
  readonly method: Method;
  /** The path as hono declares it (`/services/:serviceId`). */
  readonly path: string;
  readonly summary: string;
  readonly body?: BodySchema | Json;
  readonly query?: QuerySchema;
  readonly answer: Answer;
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const page = (item: string): Json => ({
  type: 'object',
  required: ['items', 'nextCursor', 'hasMore'],
  properties: {
    items: { type: 'array', items: ref(item) },
    nextCursor: { type: ['string', 'null'] },
    hasMore: { type: 'boolean' },
  },
});
const ok = (schema: Answer['schema'], status = 200): Answer => ({ status, schema });
const nullable = (type: string): Json => ({ type: [type, 'null'] });
const object = (required: string[], properties: Json, extra: Json = {}): Json => ({
  type: 'object',
  required,
  properties,
  ...extra,
});
const JSON_PATCH: Json = {
  type: 'array',
  description: 'A JSON Patch (RFC 6902)',
  items: object(['op', 'path'], {
    op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
    path: { type: 'string' },
    from: { type: 'string' },
    value: {},
  }),
};

/** The record schemas of `@cyrnel/sdk/api`, in JSON Schema (2020-12, the dialect of OpenAPI 3.1). */
const SCHEMAS: Record<string, Json> = {
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
      ok: { type: 'boolean' },
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

/** The routes of one settings owner (`/modules/:moduleId`, `/services/:serviceId`). */
function settingsRoutes(base: string, owner: string): Route[] {
  return [
    {
      method: 'get',
      path: `${base}/config`,
      summary: `The ${owner}'s config (defaults shown)`,
      answer: ok(ref('Config')),
    },
    {
      method: 'patch',
      path: `${base}/config`,
      summary: `JSON-patch the ${owner}'s config; validated against its config schema`,
      body: JSON_PATCH,
      answer: ok(ref('Config')),
    },
    {
      method: 'get',
      path: `${base}/secrets`,
      summary: `Which of the ${owner}'s secrets are set (JSON pointers, never values)`,
      answer: ok(ref('SecretsPresence')),
    },
    {
      method: 'patch',
      path: `${base}/secrets`,
      summary: `JSON-patch the ${owner}'s secrets (no \`test\`); stored encrypted`,
      body: JSON_PATCH,
      answer: ok(ref('SecretsUpdated')),
    },
    {
      method: 'get',
      path: `${base}/config/schema`,
      summary: `The ${owner}'s config schema`,
      answer: ok({ type: 'object' }),
    },
    {
      method: 'get',
      path: `${base}/secrets/schema`,
      summary: `The ${owner}'s secrets schema`,
      answer: ok({ type: 'object' }),
    },
  ];
}

/** Every route of the API that `createApp` mounts (route groups of the embedder not included). */
export const API_ROUTES: readonly Route[] = [
  { method: 'get', path: '/health', summary: 'Liveness (no key needed)', answer: ok(ref('Health')) },
  { method: 'get', path: '/openapi.json', summary: 'This document', answer: ok({ type: 'object' }) },
  {
    method: 'get',
    path: '/modules',
    summary: 'List modules',
    query: MODULE_LIST_QUERY,
    answer: ok(page('ModuleRecord')),
  },
  {
    method: 'post',
    path: '/modules/reload',
    summary: 'Scan the modules directory again; answers what loaded and what was skipped and why',
    body: REQUEST_BODIES.empty,
    answer: ok(ref('ModuleReload')),
  },
  {
    method: 'post',
    path: '/modules/install',
    summary: 'Install a module from npm or a registry (disabled)',
    body: REQUEST_BODIES.installModule,
    answer: ok(ref('ModuleDetail'), 201),
  },
  {
    method: 'get',
    path: '/modules/:moduleId',
    summary: 'One module with its schemas',
    answer: ok(ref('ModuleDetail')),
  },
  {
    method: 'patch',
    path: '/modules/:moduleId',
    summary: "An installed module's version range and auto-update flag",
    body: REQUEST_BODIES.patchModule,
    answer: ok(ref('ModuleDetail')),
  },
  {
    method: 'post',
    path: '/modules/:moduleId/update',
    summary: 'Update an installed module within its range',
    body: REQUEST_BODIES.empty,
    answer: ok(ref('ModuleUpdate')),
  },
  {
    method: 'post',
    path: '/modules/:moduleId/enabled',
    summary: 'Enable or disable a module',
    body: REQUEST_BODIES.enabled,
    answer: ok(ref('ModuleDetail')),
  },
  ...settingsRoutes('/modules/:moduleId', 'module'),
  {
    method: 'get',
    path: '/services',
    summary: 'List services',
    query: SERVICE_LIST_QUERY,
    answer: ok(page('ServiceRecord')),
  },
  {
    method: 'post',
    path: '/services',
    summary: 'Install a service from a definition text or a URL',
    body: REQUEST_BODIES.installService,
    answer: ok(ref('ServiceDetail'), 201),
  },
  {
    method: 'post',
    path: '/services/install',
    summary: 'Install a service from a registry entry',
    body: REQUEST_BODIES.installFromRegistry,
    answer: ok(ref('ServiceDetail'), 201),
  },
  {
    method: 'post',
    path: '/services/:serviceId/update',
    summary: "Update a registry-installed service to its entry's latest version",
    body: REQUEST_BODIES.empty,
    answer: ok(ref('ServiceUpdate')),
  },
  {
    method: 'post',
    path: '/services/:serviceId/refresh',
    summary: "List the service's tools again through its adapter (MCP servers)",
    body: REQUEST_BODIES.empty,
    answer: ok(ref('ServiceRefresh')),
  },
  {
    method: 'get',
    path: '/services/:serviceId',
    summary: 'One service with its schemas',
    answer: ok(ref('ServiceDetail')),
  },
  {
    method: 'patch',
    path: '/services/:serviceId',
    summary: "Replace the service's definition (text or URL); the same text changes nothing",
    body: REQUEST_BODIES.updateService,
    answer: ok(ref('ServiceDetail')),
  },
  { method: 'delete', path: '/services/:serviceId', summary: 'Delete a service', answer: ok('none', 204) },
  {
    method: 'post',
    path: '/services/:serviceId/enabled',
    summary: 'Enable (config and secrets validated, then hydrated) or disable a service',
    body: REQUEST_BODIES.enabled,
    answer: ok(ref('ServiceDetail')),
  },
  ...settingsRoutes('/services/:serviceId', 'service'),
  { method: 'get', path: '/registries', summary: 'The configured registries', answer: ok(ref('Registries')) },
  {
    method: 'get',
    path: '/registries/services',
    summary: 'Every service entry of every registry',
    answer: ok(ref('Registries')),
  },
  {
    method: 'get',
    path: '/registries/modules',
    summary: 'Every module entry of every registry',
    answer: ok(ref('Registries')),
  },
  {
    method: 'get',
    path: '/processes',
    summary: 'List processes, newest first',
    query: PROCESS_LIST_QUERY,
    answer: ok(page('ProcessSummary')),
  },
  {
    method: 'post',
    path: '/processes',
    summary: 'Create (and start) a process; with `wait: true` the answer is its result',
    body: { ...REQUEST_BODIES.createProcess, wait: { type: 'boolean' } },
    answer: ok({ anyOf: [ref('ProcessResult'), ref('ProcessRecord')] }, 201),
  },
  { method: 'get', path: '/processes/:id', summary: 'One process', answer: ok(ref('ProcessRecord')) },
  {
    method: 'delete',
    path: '/processes/:id',
    summary: 'Delete an idle process and its results',
    answer: ok('none', 204),
  },
  { method: 'get', path: '/processes/:id/code', summary: "The process's code", answer: ok('text') },
  {
    method: 'get',
    path: '/processes/:id/stdout',
    summary: 'Everything written to stdout',
    answer: ok('text'),
  },
  {
    method: 'get',
    path: '/processes/:id/stderr',
    summary: 'Everything written to stderr',
    answer: ok('text'),
  },
  {
    method: 'get',
    path: '/processes/:id/output',
    summary: 'The merged `cyrnel.output` object',
    answer: ok({ type: 'object' }),
  },
  {
    method: 'get',
    path: '/processes/:id/calls',
    summary: 'The tool calls of the last run',
    answer: ok(object(['items'], { items: { type: 'array', items: ref('ToolCallRecord') } })),
  },
  {
    method: 'get',
    path: '/processes/:id/events',
    summary: 'Server-sent events: state, stdout, stderr, output, exit',
    answer: ok('events'),
  },
  {
    method: 'post',
    path: '/processes/:id/signals/run',
    summary: 'Run an idle process again (`force` replaces earlier results)',
    body: REQUEST_BODIES.runProcess,
    answer: ok(ref('ProcessRecord')),
  },
  {
    method: 'post',
    path: '/processes/:id/signals/kill',
    summary: 'Kill a queued or running process',
    body: REQUEST_BODIES.empty,
    answer: ok(ref('ProcessRecord')),
  },
  {
    method: 'post',
    path: '/keys',
    summary: 'Create an API key; the key is shown in this answer only',
    body: REQUEST_BODIES.createKey,
    answer: ok(ref('CreatedKey'), 201),
  },
  {
    method: 'get',
    path: '/keys',
    summary: 'List API keys (never the keys)',
    query: PAGE_QUERY,
    answer: ok(page('KeyRecord')),
  },
  { method: 'delete', path: '/keys/:id', summary: 'Revoke an API key', answer: ok('none', 204) },
  {
    method: 'get',
    path: '/tools',
    summary: 'Ranked tool search and list',
    query: TOOL_LIST_QUERY,
    answer: ok(page('ToolRecord')),
  },
  {
    method: 'get',
    path: '/tools/:serviceId/:toolId',
    summary: 'One tool with its schemas',
    answer: ok(ref('ToolDetail')),
  },
  {
    method: 'get',
    path: '/tools/:serviceId/:toolId/docs',
    summary: "The tool's Markdown docs",
    answer: ok('text'),
  },
  {
    method: 'post',
    path: '/tools/:serviceId/:toolId/enabled',
    summary: 'Enable or disable one tool',
    body: REQUEST_BODIES.enabled,
    answer: ok(ref('ToolDetail')),
  },
  {
    method: 'get',
    path: '/environment/docs',
    summary: "The active environment's runtime docs (Markdown)",
    answer: ok('text'),
  },
  {
    method: 'get',
    path: '/environment/types',
    summary: 'TypeScript declarations of every enabled tool, or of a selection',
    query: { services: { type: 'string' }, tools: { type: 'string' } },
    answer: ok('text'),
  },
];

/** A flat body schema of `validateBody` as JSON Schema: the fields, the required ones, nothing else. */
export function bodyJsonSchema(body: BodySchema): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const [name, spec] of Object.entries(body)) {
    const type =
      spec.type === 'positiveInteger' ? { type: 'integer', minimum: 1 } : { type: spec.type as string };
    const field: Json = { ...type, ...(spec.maxLength === undefined ? {} : { maxLength: spec.maxLength }) };
    properties[name] = spec.nullable ? { oneOf: [field, { type: 'null' }] } : field;
    if (spec.required) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

const isBodySchema = (body: BodySchema | Json): body is BodySchema =>
  !('type' in body && typeof body.type === 'string');

/** The reasons each status may answer with, from the one list of reasons. */
function errorResponses(): Json {
  const byStatus = new Map<number, ErrorReason[]>();

  for (const [reason, { code }] of Object.entries(ERROR_REASONS)) {
    const value = ERROR_STATUS[code];
    byStatus.set(value, [...(byStatus.get(value) ?? []), reason as ErrorReason]);
  }
  return Object.fromEntries(
    [...byStatus].map(([value, reasons]) => [
      String(value),
      {
        description: `Reasons: ${reasons.join(', ')}`,
        content: { 'application/json': { schema: ref('ErrorBody') } },
      },
    ]),
  );
}

/**
 * cyrnel's HTTP API as an OpenAPI 3.1 document: every route `createApp` mounts, its request body
 * and query built from the very schemas that validate them, its answer, and the error envelope
 * with every reason. `GET /openapi.json` serves it.
 *
 * @example
 * ```ts
 * const document = openApiDocument('0.1.0');
 * document.paths['/services/{serviceId}'].get.summary; // 'One service with its schemas'
 * ```
 */
export function openApiDocument(version: string): Json & { paths: Record<string, Record<string, Json>> } {
  const agent = new Set(AGENT_ROUTES.map((route) => `${route.method.toLowerCase()} ${route.path}`));
  const paths: Record<string, Record<string, Json>> = {};
  const errors = errorResponses();
  for (const route of API_ROUTES) {
    const openPath = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const parameters = [
      ...[...route.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => ({
        name,
        in: 'path',
        required: true,
        schema:
          name === 'id' && route.path.startsWith('/processes')
            ? { type: 'integer', minimum: 1 }
            : { type: 'string' },
      })),
      ...Object.entries(route.query ?? {}).map(([name, spec]) => ({
        name,
        in: 'query',
        required: false,
        schema:
          spec.type === 'limit'
            ? { type: 'integer', minimum: 1, maximum: 100, default: 20 }
            : spec.type === 'boolean'
              ? { type: 'boolean' }
              : { type: 'string' },
      })),
    ];
    const { status, schema } = route.answer;
    const content =
      schema === 'none'
        ? undefined
        : schema === 'text'
          ? { 'text/plain': { schema: { type: 'string' } } }
          : schema === 'events'
            ? { 'text/event-stream': { schema: { type: 'string' } } }
            : { 'application/json': { schema } };
    const open = route.path === '/health' || route.path === '/openapi.json';
    paths[openPath] ??= {};
    (paths[openPath] as Record<string, Json>)[route.method] = {
      summary: route.summary,
      operationId: `${route.method}${openPath.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      ...(open
        ? { security: [] }
        : {
            description: agent.has(`${route.method} ${route.path}`)
              ? 'Any key (agent or admin).'
              : 'An admin key.',
          }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: route.body !== REQUEST_BODIES.empty,
              content: {
                'application/json': {
                  schema: isBodySchema(route.body) ? bodyJsonSchema(route.body) : route.body,
                },
              },
            },
          }
        : {}),
      responses: {
        [String(status)]: { description: route.summary, ...(content ? { content } : {}) },
        ...(open ? {} : errors),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'cyrnel',
      version,
      description:
        'The HTTP API of a cyrnel server. Errors answer `{error, code, reason, details?}`; the reasons are stable.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: 'http://127.0.0.1:9371' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (cyk_…) or the bootstrap key' },
      },
      schemas: SCHEMAS,
    },
  };
}
