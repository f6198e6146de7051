/**
 * `task`'s value, or `fallback` once `ms` have passed first: a wait that must not hang on what it
 * waits for (a database, another thread). The timer never holds the process open and is cleared
 * when the task wins; a task that rejects is the caller's to catch.
 *
 * @example
 * ```ts
 * const queued = await atMost(storage.countUnclaimed().catch(() => null), 2_000, null);
 * ```
 */
export async function atMost<T, F>(task: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  try {
    return await Promise.race([task, late]);
  } finally {
    clearTimeout(timer);
  }
}
