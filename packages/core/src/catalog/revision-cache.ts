/** Most values a cache of catalog reads keeps; past it the cache starts again. */
const MAX_KEPT = 10_000;

/** Longest key a cache of catalog reads keeps (keys may come from sandbox code: a longer one is read every time). */
const MAX_KEY_LENGTH = 256;

/**
 * Keep `value` under `key` in a cache whose keys may come from sandbox code: not at all for a key
 * longer than 256 characters, and past 10,000 values the cache starts again.
 *
 * @example
 * ```ts
 * keepBounded(cache, serviceId, entry); // a no-op for an id of 100,000 characters
 * ```
 */
export function keepBounded<T>(kept: Map<string, T>, key: string, value: T): void {
  if (key.length > MAX_KEY_LENGTH) return;
  if (kept.size >= MAX_KEPT && !kept.has(key)) kept.clear();
  kept.set(key, value);
}

/**
 * A read-through cache of catalog reads, emptied whenever the catalog's revision moves (every write
 * on this host, every change heard from another host). A value is kept only when `keep` says so
 * and no write finished while it was read; at most 10,000 values of keys up to 256 characters.
 * Without a revision every read goes to the catalog.
 *
 * @example
 * ```ts
 * const gates = revisionCache<ToolGateRow | undefined>(watched.revision, (row) => row?.enabled === true);
 * const row = await gates(`${serviceId}\u0000${toolId}`, () => catalog.getToolGate(serviceId, toolId));
 * ```
 */
export function revisionCache<T>(
  revision: (() => number) | undefined,
  keep: (value: T) => boolean,
): (key: string, read: () => Promise<T>) => Promise<T> {
  if (!revision) return (_key, read) => read();
  let keptAt = revision();
  const kept = new Map<string, T>();
  return async (key, read) => {
    const at = revision();
    if (at !== keptAt) {
      kept.clear();
      keptAt = at;
    }
    if (kept.has(key)) return kept.get(key) as T;
    const value = await read();
    // Read before a write that finished meanwhile: not kept under the newer revision.
    if (revision() === at && keptAt === at && keep(value)) keepBounded(kept, key, value);
    return value;
  };
}
