/** Tells listeners when the list of tools may have changed. */
export interface ToolListChanges {
  /** Call `listener` after every change from now on; answers the unsubscription. */
  subscribe(listener: () => void): () => void;
}

/** A {@link ToolListChanges} that looks for itself, until closed. */
export interface ToolListWatch extends ToolListChanges {
  /** Stop looking and forget every listener. */
  close(): void;
}

/**
 * Look at `version` every `pollMs` while anyone listens (one look at a time; the timer does not
 * keep the process alive) and tell every listener when it changed since the last look.
 *
 * @example
 * ```ts
 * const watch = watchToolList(() => host.catalogVersion(), 1000);
 * const stop = watch.subscribe(() => void server.sendToolListChanged());
 * ```
 */
export function watchToolList(
  version: () => string | Promise<string>,
  pollMs: number,
  onerror?: (error: Error) => void,
): ToolListWatch {
  const listeners = new Set<() => void>();
  let seen: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let looking = false;
  const look = async () => {
    if (looking) return;
    looking = true;
    try {
      const now = await version();
      const changed = seen !== undefined && now !== seen;
      seen = now;
      if (changed) for (const listener of [...listeners]) listener();
    } catch (error) {
      onerror?.(error instanceof Error ? error : new Error(String(error)));
    } finally {
      looking = false;
    }
  };
  const stop = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      if (timer === undefined) {
        void look();
        timer = setInterval(() => void look(), pollMs);
        timer.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          stop();
          seen = undefined;
        }
      };
    },
    close() {
      listeners.clear();
      stop();
    },
  };
}
