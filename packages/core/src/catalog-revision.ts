import type { CatalogStorage } from './catalog-storage';

/** A catalog storage that counts its writes, so caches know when what they hold is stale. */
export interface WatchedCatalog {
  readonly catalog: CatalogStorage;
  /** Grows with every write made through `catalog` (after the write has finished). */
  revision(): number;
  /**
   * Read the shared count of catalog writes (`CatalogStorage.catalogRevision`): true when another
   * host wrote since the last look (the local revision then grows too); false without one, or
   * when the storage does not count.
   */
  poll(): Promise<boolean>;
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
  // The shared count as this host last knew it, and whether a write of another host slipped in.
  let seen: number | undefined;
  let missed = false;
  const count = async () => {
    if (!inner.bumpCatalogRevision) return;
    const next = await inner.bumpCatalogRevision();
    if (seen !== undefined && next !== seen + 1) missed = true;
    seen = next;
  };
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
          await count().catch(() => {
            missed = true;
          });
          await afterWrite?.();
        }
      };
    },
  });
  return {
    catalog,
    revision: () => revision,
    async poll() {
      if (!inner.catalogRevision) return false;
      const now = await inner.catalogRevision();
      const moved = (seen !== undefined && now !== seen) || missed;
      seen = now;
      missed = false;
      if (moved) revision++;
      return moved;
    },
  };
}
