import { cyrnelError } from '@cyrnel/core';
import type { LOG_ROUTES, LogLine } from '@cyrnel/sdk/api';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { LogSource } from '../operations';
import { createEventQueue, streamEvents } from './event-queue';
import { DEFAULT_LOG_TAIL, type LogFilter, logFilterOf, matchesLogFilter, tailOfLogs } from './log-filter';
import type { RouteContext } from './route-context';
import type { RouteHandlers } from './route-handler';

/**
 * Unsent JSON one followed log stream may hold (at most the app's `maxEventQueueBytes`): well above
 * a whole buffer of lines, far below what a stalled client of a busy server would otherwise cost.
 */
export const MAX_LOG_QUEUE_BYTES = 1024 * 1024;

/** A line's JSON, made once however many followers send it. */
const texts = new WeakMap<LogLine, string>();
const textOf = (line: LogLine): string => {
  let text = texts.get(line);
  if (text === undefined) {
    text = JSON.stringify(line);
    texts.set(line, text);
  }
  return text;
};

/**
 * The handler of `GET /logs`: lines from the embedder's buffer, listed or followed as Server-Sent
 * Events by at most `maxFollowers` clients at once (429 `too_many_streams` beyond: every line is
 * sent to every follower).
 */
export function logHandlers(
  ctx: RouteContext,
  logs: LogSource,
  maxFollowers: number,
): RouteHandlers<typeof LOG_ROUTES> {
  let following = 0;
  const unfollow = () => {
    following--;
  };
  return {
    list: async ({ query }, c) => {
      const follow = query?.follow ?? c.req.header('accept')?.includes('text/event-stream') === true;
      const filter = logFilterOf(query, follow ? c.req.header('last-event-id') : undefined);
      // After a given line, every newer one by default (a follower resuming misses none).
      const tail = Math.min(
        query?.tail ?? (filter.after === undefined ? DEFAULT_LOG_TAIL : logs.capacity),
        logs.capacity,
      );
      if (!follow) return { items: tailOfLogs(logs.lines(), filter, tail), capacity: logs.capacity };
      if (following >= maxFollowers) {
        throw cyrnelError(
          'too_many_streams',
          `too many followers of the log (at most ${maxFollowers}); retry later`,
        );
      }
      following++;
      try {
        return followLogs(ctx, c, logs, filter, tail, unfollow);
      } catch (error) {
        unfollow();
        throw error;
      }
    },
  };
}

/**
 * Follow the log: the backlog the list would answer, then every new matching line as it is written
 * (event `log`, `id` its `seq`), in one bounded queue like the processes' event streams (a client
 * that does not read is dropped; the streams count among `maxEventStreams`).
 */
function followLogs(
  ctx: RouteContext,
  c: Context<AppEnv>,
  logs: LogSource,
  filter: LogFilter,
  tail: number,
  onClosed: () => void,
): Response {
  const budget = ctx.eventStreams;
  if (!budget.open()) {
    throw cyrnelError(
      'too_many_streams',
      `too many open event streams (at most ${ctx.maxEventStreams}); retry later`,
    );
  }
  // The backlog and the subscription are taken in one turn: no line falls between them.
  const backlog = tailOfLogs(logs.lines(), filter, tail);
  const backlogBytes = backlog.reduce((sum, line) => sum + textOf(line).length, 0);
  // The backlog is sent whatever its size (it is bounded by the buffer); what may pile up behind
  // it while the client does not read is bounded.
  const liveBytes = Math.min(ctx.maxEventQueueBytes, MAX_LOG_QUEUE_BYTES);
  const queue = createEventQueue({ budget, maxQueueBytes: backlogBytes + liveBytes });
  const send = (line: LogLine) => queue.push({ event: 'log', data: textOf(line), id: String(line.seq) });
  for (const line of backlog) send(line);
  const newer = { ...filter, after: Math.max(filter.after ?? 0, backlog.at(-1)?.seq ?? 0) };
  const unsubscribe = logs.subscribe((line) => {
    if (!queue.dropped() && matchesLogFilter(line, newer)) send(line);
  });
  return streamEvents(c, queue, {
    heartbeatMs: ctx.heartbeatMs,
    onDropped: (why) =>
      ctx.logger.warn(`logs stream dropped: ${why}`, {
        requestId: c.get('requestId'),
        maxQueueBytes: liveBytes,
      }),
    onClosed: () => {
      unsubscribe();
      budget.close();
      onClosed();
    },
  });
}
