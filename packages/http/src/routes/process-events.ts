import { cyrnelError } from '@cyrnel/core';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { createEventQueue, streamEvents } from './event-queue';
import type { RouteContext } from './route-context';

/**
 * `GET /processes/:id/events`: Server-Sent Events. Subscribing happens before the stream
 * opens so an unknown id is a plain 404; events are queued until written (`event-queue.ts`),
 * heartbeat comments keep proxies from timing the connection out, and the stream ends after `exit`
 * or when the client leaves (the subscription is dropped either way). Writes wait for the
 * client, so a client that reads slower than the process produces would grow the queue:
 * past `maxEventQueueBytes` of queued JSON, or when all streams together would hold more than
 * the app's shared budget, the stream is dropped instead. Beyond the cap of open streams the
 * request is a 429 `too_many_streams` (with `Retry-After`).
 */
export async function processEvents(ctx: RouteContext, c: Context<AppEnv>, id: number): Promise<Response> {
  const budget = ctx.eventStreams;
  if (!budget.open()) {
    throw cyrnelError(
      'too_many_streams',
      `too many open event streams (at most ${ctx.maxEventStreams}); retry later`,
    );
  }
  const queue = createEventQueue({ budget, maxQueueBytes: ctx.maxEventQueueBytes });
  let unsubscribe: () => void;
  try {
    unsubscribe = await ctx.host.processes.subscribe(id, (event) => {
      if (queue.dropped()) return;
      queue.push({ event: event.type, data: JSON.stringify(event.data), last: event.type === 'exit' });
    });
  } catch (error) {
    budget.close();
    throw error;
  }
  return streamEvents(c, queue, {
    heartbeatMs: ctx.heartbeatMs,
    onDropped: (why) =>
      ctx.logger.warn(`events stream dropped: ${why}`, {
        requestId: c.get('requestId'),
        processId: id,
        maxEventQueueBytes: ctx.maxEventQueueBytes,
        maxEventBufferBytes: ctx.maxEventBufferBytes,
      }),
    onClosed: () => {
      unsubscribe();
      budget.close();
    },
  });
}
