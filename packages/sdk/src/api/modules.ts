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
