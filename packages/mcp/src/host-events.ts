import type { ProcessesApi } from '@cyrnel/core';
import type { ProcessEvent } from '@cyrnel/sdk/api';

/**
 * The events of a host's process as an async iterable: the host's `subscribe` replays those so
 * far and streams the rest. Ends after `exit`, or quietly when `signal` aborts.
 *
 * @example
 * ```ts
 * for await (const event of hostProcessEvents(host.processes, 7, signal)) {
 *   if (event.type === 'stdout') process.stdout.write(event.data.text);
 * }
 * ```
 */
export async function* hostProcessEvents(
  processes: ProcessesApi,
  id: number,
  signal: AbortSignal,
): AsyncGenerator<ProcessEvent, void, undefined> {
  if (signal.aborted) return;
  const queue: ProcessEvent[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = await processes.subscribe(id, (event) => {
    queue.push(event);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      for (let event = queue.shift(); event !== undefined; event = queue.shift()) {
        yield event;
        if (event.type === 'exit') return;
      }
      if (signal.aborted) return;
      // Set synchronously after the queue was emptied: no event can slip in between.
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    unsubscribe();
  }
}
