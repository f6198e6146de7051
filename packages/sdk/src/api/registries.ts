/** One published version of a registry entry. */
export interface RegistryVersion {
  /** Where the definition text (services) or the module archive (modules) is downloaded from. */
  url: string;
  /** SHA-256 of the downloaded bytes, lowercase hex; a mismatch refuses the install. */
  hash: string;
  /** Host versions this version works with (`engines.cyrnel`, a semver range). */
  engines?: { cyrnel?: string };
}

/** A versioned descriptor: what a registry says about one service or module. */
export interface RegistryEntry {
  /** The version installed when none is asked for; a key of `versions`. */
  latestVersion: string;
  /** Every published version, keyed by semver. */
  versions: Record<string, RegistryVersion>;
  /** What it is. */
  description?: string;
}

/** A service in a registry: its definition is installed with `adapter`. */
export interface RegistryServiceEntry extends RegistryEntry {
  /** The adapter module that reads the definition, e.g. `openapi`. */
  adapter: string;
}

/** A module in a registry: its versions' `url` is a module archive (an npm-style `.tgz`). */
export type RegistryModuleEntry = RegistryEntry;

/**
 * The registry metadata document, served at `<base>/.well-known/registry.json`.
 *
 * @example
 * ```json
 * { "name": "Example registry",
 *   "services": { "petstore": { "adapter": "openapi", "latestVersion": "1.0.0",
 *     "versions": { "1.0.0": { "url": "https://example.com/petstore.json", "hash": "9f86d0…" } } } },
 *   "modules": {} }
 * ```
 */
export interface RegistryDocument {
  /** Display name. */
  name?: string;
  /** Services by registry name. */
  services?: Record<string, RegistryServiceEntry>;
  /** Modules by module id. */
  modules?: Record<string, RegistryModuleEntry>;
}

/** `GET /registries`: one configured registry. */
export interface RegistrySummary {
  /** The metadata document's URL. */
  url: string;
  /** Its display name, or null when it has none or could not be read. */
  name: string | null;
  /** Number of services it offers (null when it could not be read). */
  serviceCount: number | null;
  /** Number of modules it offers (null when it could not be read). */
  moduleCount: number | null;
  /** Why it could not be read, else null. */
  error: string | null;
}

/** `GET /registries/services` and `GET /registries/modules`: one entry of a configured registry. */
export interface RegistryListing {
  /** The metadata URL of the registry offering it. */
  registry: string;
  /** Its name in the registry (a module's id for modules). */
  name: string;
  /** What it is, or null. */
  description: string | null;
  /** The adapter of a service; null for modules. */
  adapter: string | null;
  /** The version installed when none is asked for. */
  latestVersion: string;
  /** Every published version, ascending. */
  versions: string[];
}
