/** How long a tool result read in a worker waits for its call to take it. */
const STASH_MS = 120_000;

/** Tool results read in a worker, as JSON text, until their call takes them. */
export interface JsonTextStash {
  /** Keep `json`; answers the token a result carries instead of it. */
  put(json: string): string;
  /** The JSON text of `token`, once (undefined when unknown or taken). */
  take(token: string): string | undefined;
  clear(): void;
}

/**
 * Where a tool result read in a worker waits between the transport and `invoke`: the message the
 * MCP SDK's client handles on the main thread carries a short token instead of megabytes (over
 * HTTP the SDK parses the body text itself, which would be the whole answer again). An entry no
 * call took (the call timed out or was aborted) is dropped after two minutes.
 *
 * @example
 * ```ts
 * const stash = createJsonTextStash();
 * const token = stash.put('[1,2,3]');
 * stash.take(token); // '[1,2,3]'
 * ```
 */
export function createJsonTextStash(): JsonTextStash {
  const entries = new Map<string, { json: string; at: number }>();
  let next = 1;
  return {
    put(json) {
      const now = Date.now();
      // Oldest first: the sweep stops at the first entry still fresh.
      for (const [token, entry] of entries) {
        if (now - entry.at < STASH_MS) break;
        entries.delete(token);
      }
      const token = String(next++);
      entries.set(token, { json, at: now });
      return token;
    },
    take(token) {
      const entry = entries.get(token);
      entries.delete(token);
      return entry?.json;
    },
    clear: () => entries.clear(),
  };
}
