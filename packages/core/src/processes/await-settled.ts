import { cyrnelError } from '../errors';
import { timerDelay } from '../timer-delay';

/** How long and until what a caller is willing to wait. */
export interface AwaitOptions {
  /** Reject with a `timeout` error after this many milliseconds. */
  readonly timeoutMs?: number;
  /** Reject with the signal's reason once it aborts. */
  readonly signal?: AbortSignal;
  /**
   * A second bound that starts later: `ms` counted from the `performance.now()` time `start`
   * resolves with (e.g. when a process starts running; never, if it never does).
   */
  readonly after?: { readonly start: Promise<number>; readonly ms: number; readonly message: string };
  /** Attached to the `timeout` error, so the caller can find what it gave up on. */
  readonly details?: unknown;
}

/** Wait for `settled`, giving up at a bound or when `signal` aborts; cleans up either way. */
export async function awaitSettled(
  settled: Promise<void>,
  what: string,
  options: AwaitOptions = {},
): Promise<void> {
  const { timeoutMs, signal, after, details } = options;
  if (timeoutMs === undefined && signal === undefined && after === undefined) return settled;
  const cleanups: (() => void)[] = [];
  let done = false;
  const stop = new Promise<never>((_, reject) => {
    const giveUp = (message: string, ms: number) => {
      const timer = setTimeout(
        () => reject(cyrnelError('wait_timeout', message, { details })),
        timerDelay(ms),
      );
      cleanups.push(() => clearTimeout(timer));
    };
    if (timeoutMs !== undefined) giveUp(`${what} did not finish within ${timeoutMs} ms`, timeoutMs);
    if (after) {
      void after.start.then((startedAt) => {
        if (!done) giveUp(after.message, after.ms - (performance.now() - startedAt));
      });
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
    done = true;
    for (const cleanup of cleanups) cleanup();
  }
}
