import type { JSONSchema } from '@cyrnel/sdk';
import type { CatalogStorage } from '../catalog/catalog-storage';

/** The shared schemas of services, read once per definition (not once per call). */
export interface SharedSchemasCache {
  /** The service's shared schemas for its definition `hash`; undefined when it has none. */
  get(serviceId: string, hash: string): Promise<Readonly<Record<string, JSONSchema>> | undefined>;
}

/** Definitions whose parsed shared schemas are kept (the ones in use by calls and renderings). */
const MAX_ENTRIES = 8;

/**
 * Create the cache. A service's shared schemas can be megabytes of JSON; parsing them per call or
 * per rendering would cost more than the call, and the same object shared by every tool of the
 * service is what lets the checker and the environment treat it once. Keyed by definition hash,
 * so an update is a new entry and the old one ages out.
 */
export function createSharedSchemasCache(catalog: CatalogStorage): SharedSchemasCache {
  const entries = new Map<string, Promise<Record<string, JSONSchema> | undefined>>();
  return {
    get(serviceId, hash) {
      const key = `${serviceId}\u0000${hash}`;
      let entry = entries.get(key);
      if (entry) {
        entries.delete(key);
      } else {
        entry = catalog.getServiceSchemas(serviceId);
        entry.catch(() => entries.delete(key));
      }
      entries.set(key, entry);
      for (const oldest of entries.keys()) {
        if (entries.size <= MAX_ENTRIES) break;
        entries.delete(oldest);
      }
      return entry;
    },
  };
}
