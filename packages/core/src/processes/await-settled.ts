import { TimeoutError } from '../errors';

/** How long and until what a caller is willing to wait. */
export interface AwaitOptions {
  /** Reject with a `timeout` error after this many milliseconds. */
  readonly timeoutMs?: number;
  /** Reject with the signal's reason once it aborts. */
  readonly signal?: AbortSignal;
}

/** Wait for `settled`, giving up after `timeoutMs` or when `signal` aborts; cleans up either way. */
export async function awaitSettled(
  settled: Promise<void>,
  what: string,
  options: AwaitOptions = {},
): Promise<void> {
  const { timeoutMs, signal } = options;
  if (timeoutMs === undefined && signal === undefined) return settled;
  const cleanups: (() => void)[] = [];
  const stop = new Promise<never>((_, reject) => {
    if (timeoutMs !== undefined) {
      const timer = setTimeout(
        () => reject(new TimeoutError(`${what} did not finish within ${timeoutMs} ms`)),
        timeoutMs,
      );
      cleanups.push(() => clearTimeout(timer));
    }
    if (signal) {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', onAbort));
    }
  });
  try {
    await Promise.race([settled, stop]);
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}
