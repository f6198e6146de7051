import type { CatalogStorage } from '../catalog/catalog-storage';

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
  /**
   * Another host announced a write (its signal was heard): the local revision grows, so caches
   * keyed on it (the policies, the gate's flags) read again instead of waiting for the next poll.
   */
  heard(): void;
}

// Every method of the port that writes starts with one of these verbs.
const WRITES = /^(insert|update|set|delete|replace)/;

/** What a catalog write touched: a service (its row, tools, config or secrets) or a module. */
export type CatalogTarget = { readonly service: string } | { readonly module: string };

/**
 * The service or module a write of the catalog port touched, from its method and arguments
 * (undefined for a write this does not know: readers then look at everything).
 *
 * @example
 * ```ts
 * writeTarget('setServiceEnabled', ['github', true, at]); // { service: 'github' }
 * ```
 */
export function writeTarget(method: string, args: readonly unknown[]): CatalogTarget | undefined {
  const [first] = args;
  switch (method) {
    case 'setConfig':
    case 'setSecrets': {
      const owner = first as { kind?: unknown; id?: unknown } | undefined;
      if (typeof owner?.id !== 'string') return undefined;
      return owner.kind === 'module' ? { module: owner.id } : { service: owner.id };
    }
    case 'insertService':
    case 'insertModule': {
      const id = (first as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'string') return undefined;
      return method === 'insertModule' ? { module: id } : { service: id };
    }
    case 'updateModule':
      return typeof first === 'string' ? { module: first } : undefined;
    case 'insertConnection': {
      const serviceId = (first as { serviceId?: unknown } | undefined)?.serviceId;
      return typeof serviceId === 'string' ? { service: serviceId } : undefined;
    }
    case 'updateConnection':
    case 'deleteConnection':
    case 'replaceServiceDefinition':
    case 'setServiceEnabled':
    case 'deleteService':
    case 'setToolEnabled':
    case 'setServicePolicy':
    case 'setServiceObserveOutputs':
    case 'updateObservedOutput':
      return typeof first === 'string' ? { service: first } : undefined;
    default:
      return undefined;
  }
}

/**
 * Wrap the catalog port so every write bumps a revision: the rendered type declarations are built
 * once per revision instead of once per request (rendering them costs far more than a request).
 *
 * @example
 * ```ts
 * const { catalog, revision } = watchCatalog(store.catalog);
 * await catalog.setToolEnabled('weather', 'getForecast', false, at); // revision() is now 1
 * ```
 */
export function watchCatalog(
  inner: CatalogStorage,
  /**
   * Awaited after every write, before the write's caller goes on (direct calls drop what they
   * hold; other hosts are told what changed).
   */
  afterWrite?: (target: CatalogTarget | undefined) => Promise<void>,
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
          await afterWrite?.(writeTarget(property, args));
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
    heard() {
      revision++;
    },
  };
}
