/** Longest an output patch waits in the child before it is sent to the host. */
export const OUTPUT_FLUSH_MS = 5;
/** Bytes of merged patch JSON that are sent at once instead of waiting. */
export const OUTPUT_FLUSH_BYTES = 16 * 1024;

/** The `cyrnel.output` patches of one execution, merged until they are sent. */
export interface OutputFlush {
  /** Merge one patch's entries (key, JSON text of its value): later keys overwrite earlier ones. */
  add(entries: readonly (readonly [string, string])[]): void;
  /** Send what is merged now (the end of the execution). */
  flush(): void;
}

/**
 * Merge output patches in the child and send them at most every {@link OUTPUT_FLUSH_MS} or
 * {@link OUTPUT_FLUSH_BYTES}: a program calling `cyrnel.output` in a loop costs the host one
 * parse and merge per flush, of the keys written since the last one, not one per call. A shallow
 * merge of patches in order is the patch of their merge, so the host's result is the same.
 *
 * @example
 * ```ts
 * const output = createOutputFlush((json) => send({ t: 'output', eid, json }));
 * output.add([['count', '1']]);
 * output.add([['count', '2']]); // sent once, as {"count":2}
 * ```
 */
export function createOutputFlush(
  send: (json: string) => void,
  options: { readonly flushMs?: number; readonly flushBytes?: number } = {},
): OutputFlush {
  const flushMs = options.flushMs ?? OUTPUT_FLUSH_MS;
  const flushBytes = options.flushBytes ?? OUTPUT_FLUSH_BYTES;
  // Insertion order is the order keys first appear, as in the object the host merges into.
  const pending = new Map<string, string>();
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const parts: string[] = [];
    for (const [key, json] of pending) parts.push(`${JSON.stringify(key)}:${json}`);
    pending.clear();
    bytes = 0;
    send(`{${parts.join(',')}}`);
  };

  return {
    add(entries) {
      for (const [key, json] of entries) {
        const before = pending.get(key);
        bytes += json.length - (before === undefined ? -key.length - 4 : before.length);
        pending.set(key, json);
      }
      if (bytes >= flushBytes) flush();
      else timer ??= setTimeout(flush, flushMs);
    },
    flush,
  };
}
