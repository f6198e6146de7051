import type { JSONSchema, ModuleType, ToolAnnotations } from '@cyrnel/sdk';
import type { RegistryOrigin, ServicePolicy } from '@cyrnel/sdk/api';
import type { SealedSecrets } from '../secrets/secrets-cipher';
import type { ConnectionStorage } from './connection-storage';

/**
 * Whose config and secrets: a module's or a service's. Both kinds are stored and handled the
 * same way, keyed by this pair.
 *
 * @example
 * ```ts
 * await catalog.getConfig({ kind: 'service', id: 'github' });
 * ```
 */
export interface SettingsOwner {
  readonly kind: 'module' | 'service';
  readonly id: string;
}

/** A row of the modules table. Timestamps are ISO strings. */
export interface ModuleRow {
  readonly id: string;
  readonly type: ModuleType;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly isBuiltin: boolean;
  readonly enabled: boolean;
  /** The module's code was not found at the last scan. */
  readonly missing: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Fields of a module row that change; absent fields stay. */
export interface ModuleChange {
  readonly type?: ModuleType;
  readonly name?: string;
  readonly description?: string;
  readonly version?: string;
  readonly isBuiltin?: boolean;
  readonly enabled?: boolean;
  readonly missing?: boolean;
  readonly updatedAt: string;
}

/** A service row with its derived tool counts (no definition text). */
export interface ServiceRow {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly adapter: string;
  readonly enabled: boolean;
  readonly hash: string;
  readonly source: string | null;
  readonly configSchema: JSONSchema;
  readonly secretsSchema: JSONSchema;
  readonly adapterDomain: Record<string, unknown>;
  /** Version of the adapter that generated the stored tools; null when unknown. */
  readonly adapterVersion: string | null;
  /** The registry entry it was installed from; null when installed directly. */
  readonly registry: RegistryOrigin | null;
  readonly toolCount: number;
  readonly enabledToolCount: number;
  /**
   * Whether the host learns the shapes of the results of its tools that declare no output schema
   * (`ToolDetailRow.observedOutput`); true unless an operator turned it off.
   */
  readonly observeOutputs: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A tool as stored. */
export interface ToolRow {
  readonly serviceId: string;
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  /** The owning service's flag. */
  readonly serviceEnabled: boolean;
  /** The owning service's adapter id. */
  readonly adapter: string;
  /** What the tool says about itself (`ToolDefinition.annotations`); `{}` when unknown. */
  readonly annotations: ToolAnnotations;
}

/** A tool with its schemas and adapter data. */
export interface ToolDetailRow extends ToolRow {
  /** The owning service's definition hash (changes on every update). */
  readonly serviceHash: string;
  readonly inputSchema: JSONSchema;
  readonly outputSchema: JSONSchema;
  readonly adapterDomain: Record<string, unknown>;
  /**
   * The shape learned from the tool's results (`updateObservedOutput`), as stored; null when
   * nothing was learned, and always null while its service does not observe outputs.
   */
  readonly observedOutput: JSONSchema | null;
}

/** What the invocation gate needs of a tool, without its schemas (the hot path of a call). */
export interface ToolGateRow {
  readonly enabled: boolean;
  readonly serviceEnabled: boolean;
  readonly adapter: string;
  /** The owning service's definition hash (changes on every update). */
  readonly serviceHash: string;
}

/** A tool to insert. */
export interface NewTool {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly inputSchema: JSONSchema;
  readonly outputSchema: JSONSchema;
  readonly adapterDomain: Record<string, unknown>;
  /** Extra words the tool is found by (`ToolDefinition.keywords`); none when absent. */
  readonly keywords?: readonly string[];
  /** What the tool says about itself (`ToolDefinition.annotations`); stored as `{}` when absent. */
  readonly annotations?: ToolAnnotations;
}

/** The definition-derived fields of a service. */
export interface ServiceDefinitionFields {
  readonly name: string;
  readonly description: string;
  readonly hash: string;
  readonly source: string | null;
  /** The definition text, kept for updates and audits. */
  readonly definition: string;
  /**
   * The UTF-8 bytes of `definition`, when the caller has them already (it hashed them): a store
   * that keeps bytes (SQLite compresses the text) need not encode a large text a second time.
   */
  readonly definitionUtf8?: Uint8Array;
  readonly configSchema: JSONSchema;
  readonly secretsSchema: JSONSchema;
  readonly adapterDomain: Record<string, unknown>;
  /** The schemas the tools share (`ServiceDefinition.schemas`), stored once; none when absent. */
  readonly schemas?: Readonly<Record<string, JSONSchema>>;
  /** Version of the adapter that generated the definition; absent is stored as null (unknown). */
  readonly adapterVersion?: string | null;
  /** The registry entry the definition came from; absent is stored as null (installed directly). */
  readonly registry?: RegistryOrigin | null;
  readonly tools: readonly NewTool[];
}

/** A service to insert with its tools, config and secrets, in one transaction. */
export interface NewService extends ServiceDefinitionFields {
  readonly id: string;
  readonly adapter: string;
  readonly enabled: boolean;
  readonly config: Record<string, unknown>;
  readonly secrets: SealedSecrets | null;
  readonly createdAt: string;
}

/** Filters of {@link CatalogStorage.listServices}, ordered by id. */
export interface ServiceRowQuery {
  /** Case-insensitive substring of id, name or description. */
  readonly query?: string;
  readonly enabled?: boolean;
  readonly adapter?: string;
  /** Only ids after this one. */
  readonly afterId?: string;
  /** At most this many rows (all when absent). */
  readonly limit?: number;
}

/** Filters of {@link CatalogStorage.listTools}, ordered by (serviceId, id). */
export interface ToolRowQuery {
  readonly serviceId?: string;
  /** The tool's own flag. */
  readonly enabled?: boolean;
  /** Only tools after this position. */
  readonly after?: { readonly serviceId: string; readonly toolId: string };
  readonly limit?: number;
}

/**
 * A ranked tool search ({@link CatalogStorage.searchTools}). Only effectively enabled tools are
 * answered: the tool's and its service's flags on, the service's adapter among `adapters`.
 */
export interface ToolSearchQuery {
  /** The query as the caller gave it (hostile); read with `parseSearch`. Blank: every tool, in (serviceId, id) order. */
  readonly text: string;
  /** Only this service's tools. */
  readonly serviceId?: string;
  /** The adapters active now (the store cannot know which are). */
  readonly adapters: readonly string[];
  /** Services whose tools are left out (those the host failed to hydrate). */
  readonly excludedServices?: readonly string[];
  /** At most this many tools. */
  readonly limit: number;
}

/**
 * The storage port of modules, services, tools, config and secrets. The core declares it and
 * never imports a database library; `@cyrnel/store` implements it with Kysely. Multi-row
 * changes are single transactions. Implementations throw 409 `service_exists` on a duplicate id.
 */
export interface CatalogStorage extends ConnectionStorage {
  listModules(): Promise<ModuleRow[]>;
  insertModule(row: ModuleRow): Promise<void>;
  updateModule(id: string, change: ModuleChange): Promise<void>;

  /** An owner's stored config, or undefined when never set. */
  getConfig(owner: SettingsOwner): Promise<Record<string, unknown> | undefined>;
  setConfig(owner: SettingsOwner, config: Record<string, unknown>, at: string): Promise<void>;
  /**
   * An owner's sealed secrets, or undefined when never set. A service's are those of its shared
   * `default` connection (`setSecrets` creates it when missing).
   */
  getSecrets(owner: SettingsOwner): Promise<SealedSecrets | undefined>;
  setSecrets(owner: SettingsOwner, secrets: SealedSecrets, at: string): Promise<void>;

  listServices(query: ServiceRowQuery): Promise<ServiceRow[]>;
  getService(id: string): Promise<ServiceRow | undefined>;
  /** Insert the service, its tools, config and secrets; 409 `service_exists` when the id exists. */
  insertService(service: NewService): Promise<void>;
  /**
   * Replace the definition fields and all tools, and set `enabled`, in one transaction; 404
   * `service_not_found` when the service is gone. Tools that remain (by id) keep their learned
   * result shape (`observedOutput`).
   */
  replaceServiceDefinition(
    id: string,
    fields: ServiceDefinitionFields,
    enabled: boolean,
    at: string,
  ): Promise<void>;
  /** False when the service does not exist. */
  setServiceEnabled(id: string, enabled: boolean, at: string): Promise<boolean>;
  /** Delete the service with its tools, config and secrets; false when it did not exist. */
  deleteService(id: string): Promise<boolean>;
  /** The stored definition text (what regeneration feeds `generateDefinition`); undefined when the service does not exist. */
  getServiceDefinitionText(id: string): Promise<string | undefined>;
  /** The service's shared schemas; undefined when it has none or does not exist. */
  getServiceSchemas(id: string): Promise<Record<string, JSONSchema> | undefined>;

  listTools(query: ToolRowQuery): Promise<ToolRow[]>;
  /**
   * Rank tools for a query, in steps, each filling up what the ones before left of `limit`:
   * a tool whose id is the query (tool id case-insensitive; a qualified `service.tool` also keeps
   * the words to that service); tools whose id, or whose name, holds every word, the shorter such
   * field first; every word in the id or name, then anywhere, then with the last word also as a
   * prefix (bm25, id and name weighing more than keywords and description); any word. Words are
   * those of `parseSearch`, matched after stemming. Ties in (serviceId, id) order. The index is
   * written in the same transactions as the tool rows.
   */
  searchTools(query: ToolSearchQuery): Promise<ToolRow[]>;
  /** Every tool of a service with schemas and adapter data, ordered by id. */
  listServiceTools(serviceId: string): Promise<ToolDetailRow[]>;
  getTool(serviceId: string, toolId: string): Promise<ToolDetailRow | undefined>;
  /** The gate's view of a tool: flags, adapter and service hash, no schemas to parse. */
  getToolGate(serviceId: string, toolId: string): Promise<ToolGateRow | undefined>;
  /** False when the tool does not exist. */
  setToolEnabled(serviceId: string, toolId: string, enabled: boolean, at: string): Promise<boolean>;
  /**
   * The policy rules of a service, as `setServicePolicy` stored them (`{}` when none were set);
   * undefined when the service does not exist. Kept across definition updates, deleted with the service.
   */
  getServicePolicy(serviceId: string): Promise<ServicePolicy | undefined>;
  /** Replace the policy rules of a service; false when the service does not exist. */
  setServicePolicy(serviceId: string, policy: ServicePolicy, at: string): Promise<boolean>;
  /**
   * Turn the learning of result shapes on or off for a service's tools (`ServiceRow.observeOutputs`)
   * and forget every shape its tools hold, in one transaction, whichever way it turns: a shape
   * written by a host that had not seen the switch yet is gone when it is turned on again. Not a
   * change of the service (its `updatedAt` stays: nothing to hydrate again). False when the
   * service does not exist.
   */
  setServiceObserveOutputs(serviceId: string, observe: boolean): Promise<boolean>;
  /**
   * Store `next` as a tool's learned shape only while the stored one is still `expected` (compared
   * as `JSON.stringify` text; null: none) and its service observes outputs, in one conditional
   * write: hosts on one database merge into what is stored, never over one another. False when
   * nothing was written (another host wrote first, the switch is off, the tool is gone).
   */
  updateObservedOutput(
    serviceId: string,
    toolId: string,
    expected: JSONSchema | null,
    next: JSONSchema,
  ): Promise<boolean>;
  /**
   * Optional (several hosts): the count of catalog writes shared by every host on the database. A host
   * that sees it move by more than its own writes re-reads the catalog.
   */
  catalogRevision?(): Promise<number>;
  /** Count one catalog write; answers the new count. */
  bumpCatalogRevision?(): Promise<number>;
}
