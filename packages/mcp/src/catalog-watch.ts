import { executeDescription, INLINE_TYPES_UP_TO } from './execute-description';
import type { McpBackend } from './mcp-backend';

/** The catalog's version, told after every look at it (a service installed, enabled, removed… changes it). */
export interface CatalogChanges {
  /**
   * Call `listener` with the catalog's version after every look from now on (the first soon);
   * answers the unsubscription. Each listener compares versions itself: what it last saw is its own.
   */
  subscribe(listener: (version: string) => void): () => void;
  /**
   * True when each version is `execute_typescript`'s description itself, rendered at the look
   * (a backend with no catalog version of its own): a follower takes it as the description
   * instead of rendering a second one, which could show a newer catalog than the version told.
   */
  readonly describes?: boolean;
}

/** A {@link CatalogChanges} that looks at the catalog itself, until closed. */
export interface CatalogWatch extends CatalogChanges {
  /** Stop looking and forget every listener. */
  close(): void;
}

/** Options of {@link createCatalogWatch}. */
export interface CatalogWatchOptions {
  /**
   * A token that changes whenever what agents see of the catalog changes: the host's catalog
   * version, or, where nothing cheaper says it, what is rendered from the catalog itself.
   */
  version(): string | Promise<string>;
  /** Least time between two looks, in ms. */
  readonly pollMs: number;
  /** A look that failed (it is tried again at the next one). */
  readonly onerror?: ((error: Error) => void) | undefined;
  /** Each version is `execute_typescript`'s description itself ({@link CatalogChanges.describes}). */
  readonly describes?: boolean;
}

/**
 * A look costing this many times less than the time until the next: a slow `version` (a large
 * catalog listed over HTTP) is looked at less often rather than keeping its source busy.
 */
const IDLE_FACTOR = 20;
/** The longest wait between two looks however slow they were: a change is told within it. */
const MAX_IDLE_MS = 15_000;

/**
 * Look at the catalog's version every `pollMs` while anyone listens (one look at a time, never
 * blocking, and the timer does not keep the process alive), telling every listener.
 *
 * @example
 * ```ts
 * const watch = createCatalogWatch({ version: () => host.catalogVersion(), pollMs: 1000 });
 * let last: string | undefined;
 * watch.subscribe((version) => {
 *   if (last !== undefined && version !== last) handler.notify.toolsChanged();
 *   last = version;
 * });
 * // …
 * watch.close();
 * ```
 */
export function createCatalogWatch(options: CatalogWatchOptions): CatalogWatch {
  const listeners = new Set<(version: string) => void>();
  let timer: NodeJS.Timeout | undefined;
  let looking = false;
  let closed = false;
  const schedule = (afterMs: number) => {
    if (closed || looking || listeners.size === 0 || timer !== undefined) return;
    timer = setTimeout(look, afterMs);
    timer.unref();
  };
  const look = async () => {
    timer = undefined;
    looking = true;
    const started = performance.now();
    try {
      const version = await options.version();
      for (const listener of [...listeners]) listener(version);
    } catch (error) {
      options.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } finally {
      looking = false;
      const elapsed = performance.now() - started;
      schedule(Math.max(options.pollMs, Math.min(elapsed * IDLE_FACTOR, MAX_IDLE_MS)));
    }
  };
  return {
    ...(options.describes ? { describes: true } : {}),
    subscribe(listener) {
      listeners.add(listener);
      schedule(0);
      return () => {
        listeners.delete(listener);
      };
    },
    close() {
      closed = true;
      listeners.clear();
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** Options of {@link createBackendCatalogWatch}. */
export interface BackendCatalogWatchOptions {
  /**
   * Least time between two looks, in ms. Default: 1,000 with a backend that tells its catalog
   * version, else 5,000 (what `execute_typescript`'s description says is rendered and compared).
   */
  readonly pollMs?: number;
  /** Catalogs with at most this many tools have their declarations in the description. Default 30. */
  readonly inlineTypesUpTo?: number;
  readonly onerror?: ((error: Error) => void) | undefined;
}

/**
 * The catalog watch of a backend: its `catalogVersion()`, or where it has none (a remote server
 * over HTTP) `execute_typescript`'s description itself, rendered at each look (a slow rendering is
 * looked at less often).
 *
 * @example
 * ```ts
 * const watch = createBackendCatalogWatch(backend);
 * const server = await createCyrnelMcpServer(backend, { version, catalogChanges: watch });
 * ```
 */
export function createBackendCatalogWatch(
  backend: McpBackend,
  options: BackendCatalogWatchOptions = {},
): CatalogWatch {
  const { catalogVersion } = backend;
  const inlineTypesUpTo = options.inlineTypesUpTo ?? INLINE_TYPES_UP_TO;
  const described = () => executeDescription(backend, inlineTypesUpTo);
  // A version the backend cannot tell (undefined) is the description, rendered at the look.
  const versioned = (told: string | undefined) => told ?? described();
  return createCatalogWatch({
    version: catalogVersion
      ? () => {
          const told = catalogVersion();
          return typeof told === 'string' ? told : Promise.resolve(told).then(versioned);
        }
      : described,
    pollMs: options.pollMs ?? (catalogVersion ? 1000 : 5000),
    onerror: options.onerror,
    describes: !catalogVersion,
  });
}
