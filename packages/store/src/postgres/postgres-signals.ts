import type { HostSignals, SignalTopic } from '@cyrnel/core';
import { MAX_SIGNAL_BYTES } from '@cyrnel/core';
import type pg from 'pg';

/** Options of {@link createPostgresSignals}. */
export interface PostgresSignalsOptions {
  /** Opens the listening connection (a client of its own: a pooled one would lose its LISTEN). */
  readonly connect: () => Promise<pg.Client>;
  /** Sends the notifications. */
  readonly pool: pg.Pool;
  /** The channel, one per schema: hosts of different schemas of one database never hear each other. */
  readonly channel: string;
  /** Wait before listening again after the connection dropped, in ms. Default 500. */
  readonly retryMs?: number;
}

/** {@link HostSignals} that can be closed. */
export interface ClosableSignals extends HostSignals {
  /** Listen; resolves once the channel is heard (signals published from then on arrive). */
  start(): Promise<void>;
  close(): Promise<void>;
}

const TOPICS: ReadonlySet<string> = new Set<SignalTopic>(['queue', 'catalog', 'process', 'approval']);

/**
 * Signals between hosts over PostgreSQL's LISTEN/NOTIFY: one connection per host listens on the
 * schema's channel, notifications go out through the pool as
 * `select pg_notify(channel, 'topic:payload')`. A dropped listener connects again and tells every
 * subscriber `null` (signals may have been lost in between).
 *
 * @example
 * ```ts
 * const signals = createPostgresSignals({ connect, pool, channel: 'cyrnel_public' });
 * signals.subscribe('queue', () => claimWork());
 * ```
 */
export function createPostgresSignals(options: PostgresSignalsOptions): ClosableSignals {
  const handlers = new Map<SignalTopic, Set<(payload: string | null) => void>>();
  const quoted = `"${options.channel.replaceAll('"', '""')}"`;
  let client: pg.Client | undefined;
  let closed = false;
  let connecting: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;

  const dispatch = (topic: SignalTopic, payload: string | null) => {
    for (const handler of handlers.get(topic) ?? []) {
      try {
        handler(payload);
      } catch {
        // One failing subscriber must not keep the others from hearing.
      }
    }
  };

  const listen = (): Promise<void> => {
    connecting ??= (async () => {
      const next = await options.connect();
      const lost = () => {
        if (client !== next) return;
        client = undefined;
        next.removeAllListeners('notification');
        void next.end().catch(() => undefined);
        if (closed) return;
        retry = setTimeout(() => {
          void listen()
            .then(() => {
              for (const topic of handlers.keys()) dispatch(topic, null);
            })
            .catch(() => lost());
        }, options.retryMs ?? 500);
        retry.unref();
      };
      next.on('error', lost);
      next.on('end', lost);
      next.on('notification', (message) => {
        if (message.channel !== options.channel || message.payload === undefined) return;
        const colon = message.payload.indexOf(':');
        const topic = message.payload.slice(0, colon);
        if (colon < 0 || !TOPICS.has(topic)) return;
        dispatch(topic as SignalTopic, message.payload.slice(colon + 1));
      });
      await next.query(`listen ${quoted}`);
      if (closed) {
        await next.end();
        return;
      }
      client = next;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  return {
    async publish(topic, payload) {
      if (Buffer.byteLength(payload) > MAX_SIGNAL_BYTES)
        throw new Error(`a signal takes at most ${MAX_SIGNAL_BYTES} bytes`);
      await options.pool.query('select pg_notify($1, $2)', [options.channel, `${topic}:${payload}`]);
    },
    subscribe(topic, handler) {
      const set = handlers.get(topic) ?? new Set();
      set.add(handler);
      handlers.set(topic, set);
      return () => set.delete(handler);
    },
    start: () => listen(),
    async close() {
      closed = true;
      clearTimeout(retry);
      await connecting?.catch(() => undefined);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
