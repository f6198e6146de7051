import type { ProcessEvent } from '@cyrnel/sdk/api';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../app-env';
import type { RouteContext } from './route-context';

/**
 * `GET /processes/:id/events`: Server-Sent Events. Subscribing happens before the stream
 * opens so an unknown id is a plain 404; events are queued until written, heartbeat
 * comments keep proxies from timing the connection out, and the stream ends after `exit`
 * or when the client leaves (the subscription is dropped either way).
 */
export async function processEvents(ctx: RouteContext, c: Context<AppEnv>, id: number): Promise<Response> {
  const queue: ProcessEvent[] = [];
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const unsubscribe = await ctx.host.processes.subscribe(id, (event) => {
    queue.push(event);
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
        const event = queue.shift();
        if (!event) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          continue;
        }
        try {
          await stream.writeSSE({ event: event.type, data: JSON.stringify(event.data) });
        } catch {
          // The client went away mid-write: nothing left to deliver to.
          break;
        }
        if (event.type === 'exit') break;
      }
    } finally {
      clearInterval(heartbeat);
      signal.removeEventListener('abort', finish);
      unsubscribe();
    }
  });
}
