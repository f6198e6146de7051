import type { JSONSchema } from '../json-schema';
import type { PageQuery } from './lists';

/** A service as `GET /services` lists it. */
export interface ServiceRecord {
  /** Service id, a TypeScript identifier. */
  id: string;
  /** From the definition. */
  name: string;
  /** From the definition. */
  description: string;
  /** Id of the adapter module that owns it. */
  adapter: string;
  /** The operator's flag. */
  enabled: boolean;
  /** SHA-256 (hex) of the definition text. */
  hash: string;
  /** URL the definition was downloaded from, or null when it was given inline. */
  source: string | null;
  /** Number of tools. */
  toolCount: number;
  /**
   * Version of the adapter module whose `generateDefinition` produced the stored tools (null for
   * services stored before it was recorded). When the adapter's version changes, the host
   * regenerates the service from its stored definition text.
   */
  adapterVersion: string | null;
  /** The registry entry the service was installed from (`POST /services/install`), else null. */
  registry: RegistryOrigin | null;
  /**
   * Whether cyrnel learns the shape of the results of this service's tools that declare no output
   * schema, and offers it in their declarations marked as observed (`ToolDetail.observedOutputSchema`).
   * On by default; `POST /services/:serviceId/observe-outputs` turns it off (forgetting what was
   * learned) and on again.
   */
  observeOutputs: boolean;
  /**
   * Enabled, its adapter active, and hydrated on this host: its tools can be called.
   */
  effectivelyEnabled: boolean;
  /**
   * Why the service is not usable although enabled: the adapter's message of a failed hydration
   * (on start-up, reload, a module config or secrets change, an update), else null.
   */
  error: string | null;
  /** ISO timestamp. */
  createdAt: string;
  /** ISO timestamp. */
  updatedAt: string;
}

/** Where a registry-installed service came from. */
export interface RegistryOrigin {
  /** URL of the registry's metadata document (`…/.well-known/registry.json`). */
  url: string;
  /** The service's name in the registry. */
  name: string;
  /** The installed version. */
  version: string;
}

/** `GET /services/:serviceId`: the record plus its schemas. */
export interface ServiceDetail extends ServiceRecord {
  /** Schema of the service configuration. */
  configSchema: JSONSchema;
  /** Schema of the service secrets. */
  secretsSchema: JSONSchema;
}

/** Filters of `GET /services`. */
export interface ServiceListQuery extends PageQuery {
  /** Case-insensitive text in id, name or description. */
  query?: string;
  /** Only enabled or disabled services. */
  enabled?: boolean;
  /** Only services of this adapter. */
  adapter?: string;
  /** Only services this host failed to hydrate (`true`), or only the others (`false`). */
  failed?: boolean;
}

/** `POST /services`: install from a URL or an inline definition (exactly one of them). */
export interface InstallServiceRequest {
  /** Service id, a TypeScript identifier. */
  id: string;
  /** Adapter module id, e.g. `openapi`. */
  adapter: string;
  /** Download the definition from here. */
  url?: string;
  /** The definition text itself. */
  definition?: string;
  /** Initial configuration. */
  config?: Record<string, unknown>;
  /** Initial secrets. */
  secrets?: Record<string, unknown>;
  /** Enable right away (config and secrets must validate). Default false. */
  enabled?: boolean;
}

/** `PATCH /services/:serviceId`: a new definition, by URL or inline (exactly one of them). */
export interface UpdateServiceRequest {
  /** Download the new definition from here. */
  url?: string;
  /** The new definition text. */
  definition?: string;
}

/**
 * `POST /services/install`: install a service from a registry. The definition is
 * downloaded from the chosen version's `url` and must match its `hash`.
 *
 * @example
 * ```ts
 * await fetch(`${base}/services/install`, { method: 'POST', headers,
 *   body: JSON.stringify({ source: 'https://registry.example.com#github', version: '^1.2.0' }) });
 * ```
 */
export interface InstallFromRegistryRequest {
  /**
   * `<registry URL>#<name>` (the URL is the registry's base, whose `/.well-known/registry.json` is
   * read, or a metadata document's own URL ending in `.json`), or a bare `<name>` looked up in the
   * server's configured registries, in order.
   */
  source: string;
  /** An exact version or a semver range; default the entry's `latestVersion`. */
  version?: string;
  /** Service id; default the registry name made an identifier. */
  id?: string;
  /** Adapter module id; default the entry's `adapter`. */
  adapter?: string;
  /** Initial configuration. */
  config?: Record<string, unknown>;
  /** Initial secrets. */
  secrets?: Record<string, unknown>;
  /** Enable right away (config and secrets must validate). Default false. */
  enabled?: boolean;
}

/** `POST /services/:serviceId/refresh` answers this. */
export interface ServiceRefreshResult {
  /** False when the adapter listed the same tools: nothing was touched. */
  changed: boolean;
  /** The service after the refresh. */
  service: ServiceDetail;
}

/** `POST /services/:serviceId/update` answers this. */
export interface RegistryUpdateResult {
  /** False when the registry's version has the hash already installed: nothing was touched. */
  updated: boolean;
  /** The service after the update. */
  service: ServiceDetail;
}
