import { API_ROUTES, type LogLine, type LogsQuery, type LogsResponse } from '@cyrnel/sdk/api';
import { CyrnelHttpError, CyrnelNetworkError, CyrnelTimeoutError } from './errors';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';
import { sleep } from './sleep';
import { parseSse } from './sse-parser';
import type { OpenStream, Transport } from './transport';

/** Options of `logs.follow()`: `timeoutMs` bounds only each connection's wait for the response headers. */
export interface LogFollowOptions extends RequestOptions {
  /** Consecutive failed (re)connections before the iterator throws. Default 5. */
  maxRetries?: number;
  /** First reconnection delay in ms, doubled per consecutive failure up to 5 s. Default 250. */
  retryDelayMs?: number;
}

/** `/logs`: the server's recent log lines (admin keys only). */
export interface LogsApi {
  /**
   * `GET /logs`: the newest matching lines, oldest first (`level` the least severe shown,
   * `component`, `processId`, `tail`, `after`; see `LogsQuery`).
   *
   * @example
   * ```ts
   * const { items } = await client.logs.list({ level: 'warn', tail: 20 });
   * ```
   */
  list(query?: Omit<LogsQuery, 'follow'>, options?: RequestOptions): Promise<LogsResponse>;
  /**
   * `GET /logs?follow=true`: the matching lines as an async iterator, the backlog first, then each
   * new line as the server writes it; it never ends by itself (abort `signal` to stop). When the
   * connection drops it reconnects after the last line it yielded, so none is repeated (a line
   * the server's buffer dropped meanwhile is missed).
   *
   * @example
   * ```ts
   * const controller = new AbortController();
   * for await (const line of client.logs.follow({ component: 'core' }, { signal: controller.signal }))
   *   console.log(line.level, line.msg);
   * ```
   */
  follow(
    query?: Omit<LogsQuery, 'follow'>,
    options?: LogFollowOptions,
  ): AsyncGenerator<LogLine, void, undefined>;
}

const route = API_ROUTES.logs.list;
const MAX_DELAY_MS = 5000;

/** Build the `logs` group over the route caller (follow reads the transport's streams). */
export function createLogsApi(call: RouteCaller, transport: Transport): LogsApi {
  return {
    list: (query, options) => call(route, { query }, options),
    follow: (query, options) => followLogs(transport, query ?? {}, options ?? {}),
  };
}

async function* followLogs(
  transport: Transport,
  query: Omit<LogsQuery, 'follow'>,
  options: LogFollowOptions,
): AsyncGenerator<LogLine, void, undefined> {
  const { signal, maxRetries = 5 } = options;
  let delay = options.retryDelayMs ?? 250;
  let after = query.after;
  let failures = 0;
  for (;;) {
    let stream: OpenStream | undefined;
    let drop: Error;
    try {
      stream = await transport.stream({
        method: route.method,
        path: route.path,
        // Resumed after the last line yielded: the server sends every newer one.
        query: { ...query, ...(after === undefined ? {} : { after }), follow: true },
        options: {
          ...(signal ? { signal } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        },
      });
      for await (const message of parseSse(stream.body)) {
        if (message.retry !== undefined) delay = message.retry;
        if (message.event !== 'log') continue;
        const line = parseLine(message.data);
        if (after !== undefined && line.seq <= after) continue;
        after = line.seq;
        failures = 0;
        yield line;
      }
      drop = new CyrnelNetworkError('the log stream ended');
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof CyrnelHttpError) throw error;
      drop =
        error instanceof CyrnelNetworkError || error instanceof CyrnelTimeoutError
          ? error
          : new CyrnelNetworkError(`the log stream broke: ${String(error)}`, { cause: error });
    } finally {
      stream?.close();
    }
    failures += 1;
    if (failures > maxRetries) throw drop;
    await sleep(Math.min(delay * 2 ** (failures - 1), MAX_DELAY_MS), signal);
  }
}

function parseLine(data: string): LogLine {
  try {
    return JSON.parse(data) as LogLine;
  } catch {
    throw new CyrnelHttpError(200, undefined, 'a log line carried data that is not JSON');
  }
}
