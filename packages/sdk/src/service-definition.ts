import type { JSONSchema } from './json-schema';
import type { ToolAnnotations } from './tool-policy';

/**
 * One callable operation of a service, as an adapter's `generateDefinition` returns it.
 * `id` must be a valid TypeScript identifier: it is what process code addresses.
 */
export interface ToolDefinition {
  /** Identifier the code uses: `cyrnel.services.<serviceId>.tools.<id>`. */
  id: string;
  /** Human-friendly name. */
  name: string;
  /** What the tool does, for humans and models. */
  description: string;
  /** JSON Schema of the `parameters` object passed to `invoke`. */
  inputSchema: JSONSchema;
  /** JSON Schema of what `invoke` resolves to. */
  outputSchema: JSONSchema;
  /** Adapter-private routing data; the host never inspects it. */
  adapterDomain: Record<string, unknown>;
  /**
   * Extra words the tool is found by in tool search, besides its id, name and description: for
   * an HTTP operation its method, path segments and tags. Optional; at most 100, each at most 200
   * characters. camelCase, snake_case and kebab-case are split into words, as in ids.
   *
   * @example
   * ```ts
   * const tool: ToolDefinition = { id: 'issues_create', name: 'Create an issue', description: '…',
   *   inputSchema: {}, outputSchema: {}, adapterDomain: {},
   *   keywords: ['post', 'repos', 'owner', 'repo', 'issues'] };
   * ```
   */
  keywords?: string[];
  /**
   * What the tool says about itself (read-only, destructive, idempotent, open world), derived by
   * the adapter from the definition. Optional: a tool without them is governed by the policies'
   * defaults for unknown tools. Operators' policies are written in these terms.
   *
   * @example
   * ```ts
   * const tool: ToolDefinition = { id: 'repos_delete', name: 'Delete a repository', description: '…',
   *   inputSchema: {}, outputSchema: {}, adapterDomain: {},
   *   annotations: { destructive: true, idempotent: true } };
   * ```
   */
  annotations?: ToolAnnotations;
}

/**
 * What an adapter's `generateDefinition` returns; the host persists it with an id, hash,
 * source, adapter and enabled flag.
 */
export interface ServiceDefinition {
  /** Human-friendly service name. */
  name: string;
  /** What the service is. */
  description: string;
  /** Schema of per-service configuration (validated on PATCH, defaults applied). */
  configSchema: JSONSchema;
  /** Schema of per-service secrets (validated on PATCH, stored encrypted). */
  secretsSchema: JSONSchema;
  /** One entry per tool, in a deterministic order. */
  tools: ToolDefinition[];
  /** Adapter-private install-time data needed at invoke time; opaque to the host. */
  adapterDomain: Record<string, unknown>;
  /**
   * Schemas shared by the tools, stored once per service (optional). A tool's
   * `inputSchema` or `outputSchema`, and a shared schema itself, reference one with the local JSON
   * Pointer `{ "$ref": "#/$defs/<name>" }` (see `sharedSchemaRef`); names match
   * `SHARED_SCHEMA_NAME_PATTERN`. The host validates, documents and types a tool schema as if it were
   * `{ ...schema, $defs: { ...schemas, ...schema.$defs } }`: a name the tool schema's own `$defs` holds
   * stays its own, so definitions written before shared schemas keep their meaning. A shared schema is
   * a subschema: no `$id` or `$schema` of its own.
   *
   * @example
   * ```ts
   * const definition: ServiceDefinition = {
   *   name: 'Git host', description: '', configSchema: {}, secretsSchema: {}, adapterDomain: {},
   *   schemas: {
   *     user: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
   *     repository: { type: 'object', properties: { owner: { $ref: '#/$defs/user' } } },
   *   },
   *   tools: [{ id: 'repos_get', name: 'Get a repository', description: '', adapterDomain: {},
   *     inputSchema: { type: 'object' },
   *     outputSchema: { type: 'object', properties: { body: { $ref: '#/$defs/repository' } } } }],
   * };
   * ```
   */
  schemas?: Record<string, JSONSchema>;
}

/** The per-tool part of a {@link ServiceState}: the tool's `adapterDomain`. */
export type ToolState = Omit<
  ToolDefinition,
  'id' | 'name' | 'description' | 'inputSchema' | 'outputSchema' | 'keywords' | 'annotations'
>;

/**
 * Snapshot of one service handed to `AdapterModule.hydrateService`. The adapter replaces
 * whatever it kept for `id` with it.
 */
export interface ServiceState
  extends Omit<
    ServiceDefinition,
    'name' | 'description' | 'configSchema' | 'secretsSchema' | 'tools' | 'schemas'
  > {
  /** Service id. */
  id: string;
  /** Per-tool `adapterDomain`, keyed by tool id. */
  tools: Record<string, ToolState>;
  /** Validated configuration, defaults applied. */
  config: Record<string, unknown>;
  /** Decrypted secrets, defaults applied. Never log them. */
  secrets: Record<string, unknown>;
}
