/** Longest an output patch waits in the child before it is sent, when little was sent lately. */
export const OUTPUT_FLUSH_MS = 5;
/** Bytes of merged patch JSON that are sent at once (when the rate allows) instead of waiting. */
export const OUTPUT_FLUSH_BYTES = 16 * 1024;
/** Patch bytes per second one execution sends at most: after a patch of N bytes, the next waits N / rate. */
export const OUTPUT_BYTES_PER_SECOND = 64 * 1024;
/** The longest the rate holds a patch back: a watcher sees the output at most this late. */
export const OUTPUT_MAX_GAP_MS = 1000;

/** The `cyrnel.output` patches of one execution, merged until they are sent. */
export interface OutputFlush {
  /** Merge one patch's entries (key, JSON text of its value): later keys overwrite earlier ones. */
  add(entries: readonly (readonly [string, string])[]): void;
  /** Send what is merged now (the end of the execution). */
  flush(): void;
}

/** Options of {@link createOutputFlush}; the defaults are the constants above. */
export interface OutputFlushOptions {
  readonly flushMs?: number;
  readonly flushBytes?: number;
  readonly bytesPerSecond?: number;
  readonly maxGapMs?: number;
}

/**
 * Merge output patches in the child and send their merge {@link OUTPUT_FLUSH_MS} after the first
 * (at once from {@link OUTPUT_FLUSH_BYTES}), and never faster than
 * {@link OUTPUT_BYTES_PER_SECOND}: a program calling `cyrnel.output` in a loop costs the host one
 * parse and merge per patch, of the keys written since the last one, and a bounded number of
 * bytes per second, however many calls it makes. A shallow merge of patches in order is the patch
 * of their merge, so the host's result is the same.
 *
 * @example
 * ```ts
 * const output = createOutputFlush((json) => send({ t: 'output', eid, json }));
 * output.add([['count', '1']]);
 * output.add([['count', '2']]); // sent once, as [["count",2]]
 * ```
 */
export function createOutputFlush(
  send: (json: string) => void,
  options: OutputFlushOptions = {},
): OutputFlush {
  const flushMs = options.flushMs ?? OUTPUT_FLUSH_MS;
  const flushBytes = options.flushBytes ?? OUTPUT_FLUSH_BYTES;
  const bytesPerMs = (options.bytesPerSecond ?? OUTPUT_BYTES_PER_SECOND) / 1000;
  const maxGapMs = options.maxGapMs ?? OUTPUT_MAX_GAP_MS;
  // Insertion order is the order keys first appear, as in the object the host merges into.
  const pending = new Map<string, string>();
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  /** `performance.now()` before which the rate allows no patch. */
  let nextAt = 0;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const parts: string[] = [];
    for (const [key, json] of pending) parts.push(`[${JSON.stringify(key)},${json}]`);
    pending.clear();
    bytes = 0;
    const json = `[${parts.join(',')}]`;
    nextAt = performance.now() + Math.min(json.length / bytesPerMs, maxGapMs);
    send(json);
  };

  return {
    add(entries) {
      for (const [key, json] of entries) {
        const before = pending.get(key);
        bytes += json.length - (before === undefined ? -key.length - 4 : before.length);
        pending.set(key, json);
      }
      const now = performance.now();
      if (bytes >= flushBytes && now >= nextAt) flush();
      else timer ??= setTimeout(flush, Math.max(flushMs, nextAt - now));
    },
    flush,
  };
}
