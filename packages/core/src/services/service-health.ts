/**
 * Which services this host failed to hydrate, and why. Hydration is per host (each
 * host sets up its own adapters), so this is memory, not storage: a service whose adapter could
 * not take it is not effectively enabled, is left out of discovery, search and types, and its
 * record shows the adapter's message until a hydration succeeds, or it is disabled or deleted.
 */
export interface ServiceHealth {
  /** The adapter's message of the last failed hydration, or undefined when there is none. */
  error(serviceId: string): string | undefined;
  /** The ids of the services that failed, sorted. */
  failed(): string[];
  /** Record the outcome of a hydration (`undefined`: it succeeded), or forget the service. */
  set(serviceId: string, error: string | undefined): void;
  /** Changes with every change of the set: part of the key cached declarations depend on. */
  version(): number;
  /**
   * Whether `adapter` (the active instance) holds service `serviceId` on this host: its last
   * hydration there succeeded and nothing dropped it since. Another host's enable reaches this
   * host a moment later; until then the service is enabled in the store but not held here.
   */
  hydrated(serviceId: string, adapter: object): boolean;
  /** Record which adapter instance holds `serviceId` here (undefined: none). */
  setHydrated(serviceId: string, adapter: object | undefined): void;
}

/**
 * Create an empty {@link ServiceHealth}; `redact` cleans the messages it records.
 *
 * @example
 * ```ts
 * const health = createServiceHealth();
 * health.set('github', 'adapter openapi failed to hydrate service github: bad base URL');
 * health.failed(); // ['github']
 * ```
 */
export function createServiceHealth(redact: (text: string) => string = (text) => text): ServiceHealth {
  const errors = new Map<string, string>();
  const holders = new Map<string, object>();
  let version = 0;
  return {
    hydrated: (serviceId, adapter) => holders.get(serviceId) === adapter,
    setHydrated(serviceId, adapter) {
      if (adapter === undefined) holders.delete(serviceId);
      else holders.set(serviceId, adapter);
    },
    error: (serviceId) => errors.get(serviceId),
    failed: () => [...errors.keys()].sort(),
    set(serviceId, raw) {
      // The adapter's message is shown in the service's record and in refusals: no secret in it.
      const error = raw === undefined ? undefined : redact(raw);
      if (errors.get(serviceId) === error) return;
      if (error === undefined) errors.delete(serviceId);
      else errors.set(serviceId, error);
      version++;
    },
    version: () => version,
  };
}
