import type { CatalogStorage, ToolRow } from './catalog-storage';
import { type IndexedTool, indexTools } from './rank-tools';

/** The effectively enabled tools, indexed for ranking, and how many each service has. */
export interface DiscoverySnapshot {
  readonly tools: readonly IndexedTool[];
  readonly toolCounts: ReadonlyMap<string, number>;
}

/** Options of {@link createDiscoveryIndex}. */
export interface DiscoveryIndexOptions {
  readonly catalog: CatalogStorage;
  /** The catalog's write counter (see `watchCatalog`). */
  readonly revision: () => number;
  /** Whether an adapter is active now (activation is not a catalog write). */
  readonly isAdapterActive: (adapterId: string) => boolean;
}

/** Discovery's view of the catalog, rebuilt only when the catalog or an adapter's state changed. */
export interface DiscoveryIndex {
  current(): Promise<DiscoverySnapshot>;
}

interface Built {
  readonly revision: number;
  readonly rows: readonly ToolRow[];
  readonly adapters: readonly string[];
  signature: string;
  snapshot: DiscoverySnapshot;
}

function snapshotOf(rows: readonly ToolRow[], isActive: (adapterId: string) => boolean): DiscoverySnapshot {
  const effective = rows.filter((row) => isActive(row.adapter));
  const toolCounts = new Map<string, number>();
  for (const row of effective) toolCounts.set(row.serviceId, (toolCounts.get(row.serviceId) ?? 0) + 1);
  return { tools: indexTools(effective), toolCounts };
}

/**
 * Create the index (issue 13): one catalog read and one lower-casing pass per catalog revision,
 * shared by every discovery call until the next write, instead of a full listing per call.
 */
export function createDiscoveryIndex(options: DiscoveryIndexOptions): DiscoveryIndex {
  const { catalog, isAdapterActive } = options;
  let built: Built | undefined;
  let building: { readonly revision: number; readonly promise: Promise<Built> } | undefined;
  const signatureOf = (adapters: readonly string[]) =>
    adapters.map((id) => (isAdapterActive(id) ? '1' : '0')).join('');

  const build = async (revision: number): Promise<Built> => {
    // Read after noting the revision: a write racing the read makes the next call rebuild.
    const rows = await catalog.listTools({ enabled: true, serviceEnabled: true });
    const adapters = [...new Set(rows.map((row) => row.adapter))];
    return {
      revision,
      rows,
      adapters,
      signature: signatureOf(adapters),
      snapshot: snapshotOf(rows, isAdapterActive),
    };
  };

  return {
    async current() {
      const revision = options.revision();
      if (built?.revision !== revision) {
        // Concurrent callers of one revision share one read.
        if (building?.revision !== revision) building = { revision, promise: build(revision) };
        const pending = building;
        try {
          const result = await pending.promise;
          if (!built || result.revision > built.revision) built = result;
        } finally {
          if (building === pending) building = undefined;
        }
      }
      const current = built as Built;
      const signature = signatureOf(current.adapters);
      if (signature !== current.signature) {
        current.signature = signature;
        current.snapshot = snapshotOf(current.rows, isAdapterActive);
      }
      return current.snapshot;
    },
  };
}
