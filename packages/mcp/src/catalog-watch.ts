/** Tells when the catalog agents see may have changed (a service installed, enabled, removed…). */
export interface CatalogChanges {
  /** Call `listener` on every change from now on; answers the unsubscription. */
  subscribe(listener: () => void): () => void;
}

/** A {@link CatalogChanges} that looks for changes itself, until closed. */
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
}

/**
 * A look costing this many times less than the time until the next: a slow `version` (a large
 * catalog listed over HTTP) is looked at less often rather than keeping its source busy.
 */
const IDLE_FACTOR = 20;

/**
 * Watch the catalog by looking at its version every `pollMs` while anyone listens (one look at a
 * time, never blocking: the timer does not keep the process alive), and tell the listeners when
 * it differs from the last look.
 *
 * @example
 * ```ts
 * const watch = createCatalogWatch({ version: () => host.catalogVersion(), pollMs: 1000 });
 * const stop = watch.subscribe(() => handler.notify.toolsChanged());
 * // …
 * watch.close();
 * ```
 */
export function createCatalogWatch(options: CatalogWatchOptions): CatalogWatch {
  const listeners = new Set<() => void>();
  let seen: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const schedule = (afterMs: number) => {
    if (closed || listeners.size === 0 || timer !== undefined) return;
    timer = setTimeout(look, afterMs);
    timer.unref();
  };
  const look = async () => {
    const started = performance.now();
    try {
      const now = await options.version();
      const changed = seen !== undefined && now !== seen;
      seen = now;
      if (changed) for (const listener of [...listeners]) listener();
    } catch (error) {
      options.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } finally {
      timer = undefined;
      schedule(Math.max(options.pollMs, (performance.now() - started) * IDLE_FACTOR));
    }
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      // The first listener's look sets what later looks compare with.
      if (seen === undefined && timer === undefined && listeners.size === 1 && !closed) {
        timer = setTimeout(look, 0);
        timer.unref();
      } else schedule(options.pollMs);
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
