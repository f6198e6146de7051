import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../app-env';
import type { EventStreamBudget } from './event-stream-budget';

/** One Server-Sent Event ready to write: its JSON text is made once, when it is queued. */
export interface QueuedEvent {
  readonly event: string;
  readonly data: string;
  /** The event's `id:` field (a client's `Last-Event-ID` on reconnection). */
  readonly id?: string;
  /** The stream ends once this event is written. */
  readonly last?: boolean;
}

/**
 * The events of one stream not written yet, bounded: past `maxQueueBytes` of queued JSON, or
 * when the app's shared budget would be exceeded, the stream is dropped (and its queue emptied)
 * instead of growing while a client does not read.
 */
export interface EventQueue {
  /** Queue an event (ignored once the stream was dropped). */
  push(event: QueuedEvent): void;
  /** Why the stream was dropped, once it was. */
  dropped(): string | undefined;
}

/** The queue's side that the writer drains. */
interface DrainedQueue extends EventQueue {
  shift(): QueuedEvent | undefined;
  /** Resolves once there is something to do (an event, a drop, or `wake`). */
  wait(): Promise<void>;
  wake(): void;
  /** Give back everything still reserved in the budget. */
  clear(): void;
  /** Call `listener` once the stream is dropped (at once when it already was). */
  onDrop(listener: () => void): void;
}

/** Options of {@link createEventQueue}. */
export interface EventQueueOptions {
  /** The open streams and queued bytes all streams of the app share (the stream is already counted). */
  readonly budget: EventStreamBudget;
  /** Most event JSON (in string length) this stream may hold unsent. */
  readonly maxQueueBytes: number;
}

/**
 * Create the bounded queue of one event stream; hand it to {@link streamEvents} to write it.
 *
 * @example
 * ```ts
 * const queue = createEventQueue({ budget, maxQueueBytes: 1 << 20 });
 * queue.push({ event: 'log', data: JSON.stringify(line), id: String(line.seq) });
 * ```
 */
export function createEventQueue(options: EventQueueOptions): EventQueue {
  const { budget, maxQueueBytes } = options;
  const queue: QueuedEvent[] = [];
  let queuedBytes = 0;
  let dropped: string | undefined;
  let dropListener: (() => void) | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const clear = () => {
    budget.give(queuedBytes);
    queuedBytes = 0;
    queue.length = 0;
  };
  const drained: DrainedQueue = {
    push(event) {
      if (dropped) return;
      // String length, not UTF-8 bytes: a cheap bound on what the queue holds.
      const size = event.data.length;
      if (queuedBytes + size > maxQueueBytes) dropped = 'the client reads too slowly';
      else if (!budget.take(size)) dropped = 'the server-wide event buffer budget is spent';
      if (dropped) {
        clear();
        dropListener?.();
      } else {
        queuedBytes += size;
        queue.push(event);
      }
      notify();
    },
    dropped: () => dropped,
    shift() {
      const next = queue.shift();
      if (next) {
        queuedBytes -= next.data.length;
        budget.give(next.data.length);
      }
      return next;
    },
    wait: () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      }),
    wake: notify,
    clear,
    onDrop(listener) {
      dropListener = listener;
      if (dropped) listener();
    },
  };
  return drained;
}

/** Options of {@link streamEvents}. */
export interface StreamEventsOptions {
  /** Interval of heartbeat comments (they keep proxies from timing the connection out). */
  readonly heartbeatMs: number;
  /** The stream was dropped for `why` (a slow client): log it. */
  onDropped(why: string): void;
  /** The stream ended, however: unsubscribe, close the stream in the budget. */
  onClosed(): void;
}

/**
 * Answer Server-Sent Events from `queue` (made by {@link createEventQueue}): each event as it is
 * queued, heartbeats between them, until an event marked `last`, a drop, or the client leaving.
 * Writes wait for the client, so a client that reads slower than events come grows the queue up
 * to its bound, and is then dropped: the stream is aborted at once (a write waiting for it is
 * cancelled) and the drop reported.
 */
export function streamEvents(c: Context<AppEnv>, queue: EventQueue, options: StreamEventsOptions): Response {
  const drained = queue as DrainedQueue;
  const signal = c.req.raw.signal;
  return streamSSE(c, async (stream) => {
    let closed = false;
    const finish = () => {
      closed = true;
      drained.wake();
    };
    stream.onAbort(finish);
    signal.addEventListener('abort', finish, { once: true });
    // A drop ends the stream at once, even while a write waits for a client that stopped reading:
    // the write is cancelled and nothing more is queued for it.
    drained.onDrop(() => stream.abort());
    let reported = false;
    const report = () => {
      const why = drained.dropped();
      if (why === undefined || reported) return false;
      reported = true;
      options.onDropped(why);
      return true;
    };
    const heartbeat = setInterval(() => {
      stream.write(': heartbeat\n\n').catch(finish);
    }, options.heartbeatMs);
    try {
      while (!closed) {
        if (report()) break;
        const next = drained.shift();
        if (!next) {
          await drained.wait();
          continue;
        }
        try {
          await stream.writeSSE({
            event: next.event,
            data: next.data,
            ...(next.id === undefined ? {} : { id: next.id }),
          });
        } catch {
          // The client went away mid-write: nothing left to deliver to.
          break;
        }
        if (next.last) break;
      }
    } finally {
      report();
      clearInterval(heartbeat);
      signal.removeEventListener('abort', finish);
      drained.clear();
      options.onClosed();
    }
  });
}
