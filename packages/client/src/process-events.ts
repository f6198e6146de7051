import { API_ROUTES, type ProcessEvent, type ProcessEventMap } from '@cyrnel/sdk/api';
import { CyrnelHttpError, CyrnelNetworkError, CyrnelTimeoutError } from './errors';
import { createReplayFilter } from './replay-filter';
import type { RequestOptions } from './request-options';
import { routePath } from './route-call';
import { sleep } from './sleep';
import { parseSse } from './sse-parser';
import type { OpenStream, Transport } from './transport';

/**
 * Options of `processes.events()`. `timeoutMs` bounds only each connection's wait for the
 * response headers (`0`: no deadline, like every call); the stream itself may stay open as
 * long as the process runs.
 */
export interface ProcessEventsOptions extends RequestOptions {
  /** Consecutive failed (re)connections before the iterator throws. Default 5. */
  maxRetries?: number;
  /** First reconnection delay in ms, doubled per consecutive failure up to 5 s. Default 250. */
  retryDelayMs?: number;
}

const EVENT_NAMES: ReadonlySet<string> = new Set<keyof ProcessEventMap>([
  'state',
  'stdout',
  'stderr',
  'output',
  'exit',
]);
const MAX_DELAY_MS = 5000;

/**
 * The events of one process as an async iterator that ends after `exit`. When the connection
 * drops it reconnects; the server replays every event from the start on each connection
 * (a follower that joins late sees the whole run), and what was already yielded is skipped rather than repeated (see
 * {@link createReplayFilter} for why this is not a plain count).
 */
export async function* processEvents(
  transport: Transport,
  id: number,
  options: ProcessEventsOptions = {},
): AsyncGenerator<ProcessEvent, void, undefined> {
  const { signal, maxRetries = 5 } = options;
  let delay = options.retryDelayMs ?? 250;
  const filter = createReplayFilter();
  let failures = 0;
  for (;;) {
    let stream: OpenStream | undefined;
    let drop: Error;
    try {
      stream = await transport.stream({
        method: API_ROUTES.processes.events.method,
        path: routePath(API_ROUTES.processes.events, { id }),
        options: {
          ...(signal ? { signal } : {}),
          // `0` is a real choice (no deadline for the headers), so only undefined falls back.
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        },
      });
      filter.reconnect();
      for await (const message of parseSse(stream.body)) {
        if (message.retry !== undefined) delay = message.retry;
        if (!EVENT_NAMES.has(message.event)) continue;
        const event = filter.accept({
          type: message.event,
          data: parseData(message.data, id),
        } as ProcessEvent);
        if (event === undefined) continue;
        failures = 0;
        yield event;
        if (event.type === 'exit') return;
      }
      drop = new CyrnelNetworkError(`the event stream of process ${id} ended before its exit event`);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof CyrnelHttpError) throw error;
      drop =
        error instanceof CyrnelNetworkError || error instanceof CyrnelTimeoutError
          ? error
          : new CyrnelNetworkError(`the event stream of process ${id} broke: ${String(error)}`, {
              cause: error,
            });
    } finally {
      stream?.close();
    }
    failures += 1;
    if (failures > maxRetries) throw drop;
    await sleep(Math.min(delay * 2 ** (failures - 1), MAX_DELAY_MS), signal);
  }
}

function parseData(data: string, id: number): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new CyrnelHttpError(200, undefined, `process ${id}: an event carried data that is not JSON`);
  }
}
