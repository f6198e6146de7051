/** Most values a {@link revisionCache} keeps; past it the cache starts again. */
const MAX_KEPT = 10_000;

/** Longest key a {@link revisionCache} keeps (keys may come from sandbox code: a longer one is read every time). */
const MAX_KEY_LENGTH = 256;

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
    if (revision() === at && keptAt === at && key.length <= MAX_KEY_LENGTH && keep(value)) {
      if (kept.size >= MAX_KEPT) kept.clear();
      kept.set(key, value);
    }
    return value;
  };
}
