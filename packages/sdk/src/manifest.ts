import type { AdapterModule } from './adapter-module';
import type { EnvironmentModule } from './environment-module';
import type { JSONSchema } from './json-schema';
import { isPlainObject } from './plain-object';

/** The two kinds of module. */
export const MODULE_TYPES = ['adapter', 'environment'] as const;
/** A kind of module. */
export type ModuleType = (typeof MODULE_TYPES)[number];

/** Pattern of module ids; unlike service and tool ids, `-` is allowed. */
export const MODULE_ID_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** Semantic version `MAJOR.MINOR.PATCH[-prerelease][+build]`. */
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** What a built-in module declares about itself in code (`export const manifest`). */
export interface ModuleInfo {
  /** Stable module id, e.g. `openapi`. */
  id: string;
  /** Human-friendly name. */
  name: string;
  /** What the module does. */
  description: string;
  /** `adapter` or `environment`. */
  type: ModuleType;
  /** Semantic version of the module. */
  version: string;
  /** Host versions the module works with. */
  engines?: {
    /** Semver range checked against the host version. */
    cyrnel?: string;
  };
}

/** `module.json` of a custom module in `$CYRNEL_DATA_DIR/modules/<dir>/`. */
export interface ModuleManifest extends ModuleInfo {
  /** ES module file, relative to the module directory and inside it. */
  main: string;
}

/** The instance type a module of type `T` creates. */
export type ModuleInstance<T extends ModuleType = ModuleType> = T extends 'adapter'
  ? AdapterModule
  : EnvironmentModule;

/**
 * What a module file exports (default export, or named exports of the same names):
 * the schemas of its own config and secrets and a factory.
 */
export interface ModuleDefinition<
  M extends AdapterModule | EnvironmentModule = AdapterModule | EnvironmentModule,
> {
  /** Schema of the module's configuration. */
  configSchema: JSONSchema;
  /** Schema of the module's secrets. */
  secretsSchema: JSONSchema;
  /** Create a fresh, not yet set-up instance. */
  instantiate(): M | Promise<M>;
}

/** A built-in module as its package exports it: the definition plus the manifest in code. */
export interface BuiltinModule<
  M extends AdapterModule | EnvironmentModule = AdapterModule | EnvironmentModule,
> extends ModuleDefinition<M> {
  /** The module's manifest. */
  manifest: ModuleInfo;
}

/**
 * Problems with a `module.json` value, one message per field, empty when it is valid.
 * Checks shapes only; whether `main` stays inside the directory and whether `engines.cyrnel`
 * matches the host are the host's checks.
 */
export function validateModuleManifest(value: unknown): string[] {
  if (!isPlainObject(value)) return ['manifest must be a JSON object'];
  const problems: string[] = [];
  if (typeof value.id !== 'string' || !MODULE_ID_PATTERN.test(value.id)) {
    problems.push(`id must match ${MODULE_ID_PATTERN}`);
  }
  for (const field of ['name', 'description'] as const) {
    if (typeof value[field] !== 'string') problems.push(`${field} must be a string`);
  }
  if (!(MODULE_TYPES as readonly unknown[]).includes(value.type)) {
    problems.push(`type must be one of ${MODULE_TYPES.join(', ')}`);
  }
  if (typeof value.main !== 'string' || value.main.length === 0)
    problems.push('main must be a non-empty string');
  if (typeof value.version !== 'string' || !SEMVER_PATTERN.test(value.version)) {
    problems.push('version must be a semantic version (e.g. 1.0.0)');
  }
  if (value.engines !== undefined) {
    if (!isPlainObject(value.engines)) problems.push('engines must be an object');
    else if (value.engines.cyrnel !== undefined && typeof value.engines.cyrnel !== 'string') {
      problems.push('engines.cyrnel must be a semver range string');
    }
  }
  return problems;
}

/** True when `value` is a structurally valid {@link ModuleManifest}. */
export function isModuleManifest(value: unknown): value is ModuleManifest {
  return validateModuleManifest(value).length === 0;
}

/**
 * True when `value` has an `instantiate` function, the one member a module file cannot do
 * without. The schemas are left for the host to check (it treats a missing one as an empty
 * object schema), so the guard narrows only to what it checked.
 */
export function isModuleDefinition(
  value: unknown,
): value is Pick<ModuleDefinition, 'instantiate'> &
  Partial<Pick<ModuleDefinition, 'configSchema' | 'secretsSchema'>> {
  return isPlainObject(value) && typeof value.instantiate === 'function';
}
