import type { CatalogStorage, KeyRingOptions } from '@cyrnel/core';

/**
 * The key ring's check of the names a key's scope or policy holds (`POST /keys`): which services
 * and qualified tools (`<serviceId>.<toolId>`, split at the first dot: a service id is an
 * identifier, without dots) the catalog does not have. Each name is one small read of the catalog
 * port, so a scope of many tools costs as many reads, at key creation only.
 *
 * @example
 * ```ts
 * const keys = createKeyRing({ storage: store.keys, unknownTools: unknownToolsOf(store.catalog) });
 * ```
 */
export function unknownToolsOf(
  catalog: Pick<CatalogStorage, 'getService' | 'getToolGate'>,
): NonNullable<KeyRingOptions['unknownTools']> {
  return async (services, tools) => {
    const unknown: string[] = [];
    for (const serviceId of services) {
      if (!(await catalog.getService(serviceId))) unknown.push(serviceId);
    }
    for (const qualified of tools) {
      const dot = qualified.indexOf('.');
      const found = dot > 0 && (await catalog.getToolGate(qualified.slice(0, dot), qualified.slice(dot + 1)));
      if (!found) unknown.push(qualified);
    }
    return unknown;
  };
}
