import type { CatalogStorage } from './catalog-storage';

/** A catalog storage that counts its writes, so caches know when what they hold is stale. */
export interface WatchedCatalog {
  readonly catalog: CatalogStorage;
  /** Grows with every write made through `catalog` (after the write has finished). */
  revision(): number;
}

// Every method of the port that writes starts with one of these verbs.
const WRITES = /^(insert|update|set|delete|replace)/;

/**
 * Wrap the catalog port so every write bumps a revision: the rendered type declarations are built
 * once per revision instead of once per request (issue 13).
 *
 * @example
 * ```ts
 * const { catalog, revision } = watchCatalog(store.catalog);
 * await catalog.setToolEnabled('weather', 'getForecast', false, at); // revision() is now 1
 * ```
 */
export function watchCatalog(
  inner: CatalogStorage,
  /** Awaited after every write, before the write's caller goes on (direct calls drop what they hold). */
  afterWrite?: () => Promise<void>,
): WatchedCatalog {
  let revision = 0;
  const catalog = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property !== 'string' || !WRITES.test(property)) return method.bind(target);
      return async (...args: unknown[]) => {
        try {
          return await method.apply(target, args);
        } finally {
          revision++;
          await afterWrite?.();
        }
      };
    },
  });
  return { catalog, revision: () => revision };
}
