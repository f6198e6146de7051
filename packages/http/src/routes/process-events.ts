import { cyrnelError } from '@cyrnel/core';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../app-env';
import type { RouteContext } from './route-context';

/** One event ready to write: its JSON text is made once, when it is queued. */
interface QueuedEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * `GET /processes/:id/events`: Server-Sent Events. Subscribing happens before the stream
 * opens so an unknown id is a plain 404; events are queued until written, heartbeat
 * comments keep proxies from timing the connection out, and the stream ends after `exit`
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
  const queue: QueuedEvent[] = [];
  let queuedBytes = 0;
  let dropped: string | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  let unsubscribe: () => void;
  try {
    unsubscribe = await ctx.host.processes.subscribe(id, (event) => {
      if (dropped) return;
      const data = JSON.stringify(event.data);
      // String length, not UTF-8 bytes: a cheap bound on what the queue holds.
      if (queuedBytes + data.length > ctx.maxEventQueueBytes) dropped = 'the client reads too slowly';
      else if (!budget.take(data.length)) dropped = 'the server-wide event buffer budget is spent';
      if (dropped) {
        budget.give(queuedBytes);
        queuedBytes = 0;
        queue.length = 0;
      } else {
        queuedBytes += data.length;
        queue.push({ event: event.type, data });
      }
      notify();
    });
  } catch (error) {
    budget.close();
    throw error;
  }
  const signal = c.req.raw.signal;
  return streamSSE(c, async (stream) => {
    let closed = false;
    const finish = () => {
      closed = true;
      notify();
    };
    stream.onAbort(finish);
    signal.addEventListener('abort', finish, { once: true });
    const heartbeat = setInterval(() => {
      stream.write(': heartbeat\n\n').catch(finish);
    }, ctx.heartbeatMs);
    try {
      while (!closed) {
        if (dropped) {
          ctx.logger.warn(`events stream dropped: ${dropped}`, {
            requestId: c.get('requestId'),
            processId: id,
            maxEventQueueBytes: ctx.maxEventQueueBytes,
            maxEventBufferBytes: ctx.maxEventBufferBytes,
          });
          break;
        }
        const next = queue.shift();
        if (!next) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          continue;
        }
        queuedBytes -= next.data.length;
        budget.give(next.data.length);
        try {
          await stream.writeSSE(next);
        } catch {
          // The client went away mid-write: nothing left to deliver to.
          break;
        }
        if (next.event === 'exit') break;
      }
    } finally {
      clearInterval(heartbeat);
      signal.removeEventListener('abort', finish);
      unsubscribe();
      budget.give(queuedBytes);
      queuedBytes = 0;
      queue.length = 0;
      budget.close();
    }
  });
}
