import type { JSONSchema } from '../json-schema';
import type { ModuleType } from '../manifest';
import type { PageQuery } from './lists';

/** Where a module stands: active, inactive (disabled), draining, missing on disk, or failed to set up. */
export type ModuleStatus = 'active' | 'inactive' | 'draining' | 'missing' | 'failed';

/** A module as `GET /modules` lists it. */
export interface ModuleRecord {
  /** Module id. */
  id: string;
  /** Human-friendly name. */
  name: string;
  /** What the module does. */
  description: string;
  /** `adapter` or `environment`. */
  type: ModuleType;
  /** Module version. */
  version: string;
  /** Registered by the server itself rather than loaded from the modules directory. */
  isBuiltin: boolean;
  /** The operator's flag. */
  enabled: boolean;
  /** Runtime status. */
  status: ModuleStatus;
  /** Why activation failed or the module is missing, when it did. */
  error: string | null;
  /** Where the module was installed from (`POST /modules/install`), else null. */
  origin: ModuleOrigin | null;
  /** ISO timestamp. */
  createdAt: string;
  /** ISO timestamp. */
  updatedAt: string;
}

/** `GET /modules/:moduleId`: the record plus its schemas. */
export interface ModuleDetail extends ModuleRecord {
  /** Schema of the module's configuration. */
  configSchema: JSONSchema;
  /** Schema of the module's secrets. */
  secretsSchema: JSONSchema;
}

/** Filters of `GET /modules`. */
export interface ModuleListQuery extends PageQuery {
  /** Only this type. */
  type?: ModuleType;
  /** Only enabled or disabled modules. */
  enabled?: boolean;
  /** Only built-in or custom modules. */
  isBuiltin?: boolean;
  /** Case-insensitive text in id, name or description. */
  query?: string;
}

/** `POST /modules/reload`. */
export interface ReloadModulesResponse {
  /** Ids of the modules found on disk and loaded. */
  loaded: string[];
  /** Directories skipped, each with the reason. */
  skipped: { dir: string; error: string }[];
}

/** Where an installed module came from and how it is kept up to date. */
export interface ModuleOrigin {
  /** `npm` (a package of the configured npm registry) or `registry` (a registry's module archive). */
  kind: 'npm' | 'registry';
  /** The npm package name, or `<registry metadata URL>#<module id>`. */
  source: string;
  /** The installed version. */
  version: string;
  /** The version constraint updates stay within (a semver range or an npm dist-tag); null: the latest. */
  range: string | null;
  /** Updated on the server's auto-update interval (when one is configured). */
  autoUpdate: boolean;
  /** The verified digest of the archive (an SRI string, e.g. `sha512-…`). */
  integrity: string;
}

/**
 * `POST /modules/install`: a module from npm or a registry; it starts disabled.
 *
 * @example
 * ```ts
 * await client.modules.install({ source: '@acme/cyrnel-adapter-soap', version: '^1.2.0' });
 * await client.modules.install({ source: 'https://registry.example.com#soap' });
 * ```
 */
export interface InstallModuleRequest {
  /** An npm package name (optionally `npm:`-prefixed), or `<registry URL>#<module id>`. */
  source: string;
  /** A semver range, exact version or npm dist-tag; default the latest. Kept for updates. */
  version?: string;
  /** Update it on the server's auto-update interval. Default false. */
  autoUpdate?: boolean;
}

/** `PATCH /modules/:moduleId`: how an installed module is kept up to date. */
export interface PatchModuleRequest {
  /** The version constraint of updates; null: the latest. */
  version?: string | null;
  /** Update on the auto-update interval. */
  autoUpdate?: boolean;
}

/** `POST /modules/:moduleId/update` answers this. */
export interface ModuleUpdateResult {
  /** False when the chosen version is the installed one: nothing was touched. */
  updated: boolean;
  /** The module after the update. */
  module: ModuleDetail;
}
