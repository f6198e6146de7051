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
 * past `maxEventQueueBytes` of queued JSON the stream is dropped instead.
 */
export async function processEvents(ctx: RouteContext, c: Context<AppEnv>, id: number): Promise<Response> {
  const queue: QueuedEvent[] = [];
  let queuedBytes = 0;
  let overflowed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const unsubscribe = await ctx.host.processes.subscribe(id, (event) => {
    if (overflowed) return;
    const data = JSON.stringify(event.data);
    // String length, not UTF-8 bytes: a cheap bound on what the queue holds.
    queuedBytes += data.length;
    if (queuedBytes > ctx.maxEventQueueBytes) {
      overflowed = true;
      queue.length = 0;
    } else {
      queue.push({ event: event.type, data });
    }
    notify();
  });
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
        if (overflowed) {
          ctx.logger.warn('events stream dropped: the client reads too slowly', {
            requestId: c.get('requestId'),
            processId: id,
            maxEventQueueBytes: ctx.maxEventQueueBytes,
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
    }
  });
}
