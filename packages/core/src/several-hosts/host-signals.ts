/** What hosts sharing a database tell each other at once: queued work, catalog writes, runs, decided approvals. */
export type SignalTopic = 'queue' | 'catalog' | 'process' | 'approval';

/** Longest payload of one signal, in UTF-8 bytes (PostgreSQL's NOTIFY takes below 8,000). */
export const MAX_SIGNAL_BYTES = 7_000;

/**
 * Signals between the hosts of one database: PostgreSQL's LISTEN/NOTIFY in `@cyrnel/store`.
 * Signals are hints: a host that misses one (a dropped connection) finds the same work with its
 * slow polls, so nothing depends on every signal arriving. A storage without one (SQLite: one
 * host) leaves hosts to their polls.
 *
 * @example
 * ```ts
 * const stop = signals.subscribe('queue', () => claimWork());
 * await signals.publish('queue', '');
 * ```
 */
export interface HostSignals {
  /** Send `payload` (at most {@link MAX_SIGNAL_BYTES}) to every host listening on `topic`, this one too. */
  publish(topic: SignalTopic, payload: string): Promise<void>;
  /**
   * Call `handler` with every payload of `topic`, and with `null` when signals may have been lost
   * (the listening connection was re-established): look again. Answers the unsubscribe.
   */
  subscribe(topic: SignalTopic, handler: (payload: string | null) => void): () => void;
}

/** Signals within one process: what hosts of one storage in one process (tests) share. */
export function createLocalSignals(): HostSignals {
  const handlers = new Map<SignalTopic, Set<(payload: string | null) => void>>();
  return {
    async publish(topic, payload) {
      // Delivered on a later turn, as a notification from the database would be.
      for (const handler of handlers.get(topic) ?? []) queueMicrotask(() => handler(payload));
    },
    subscribe(topic, handler) {
      const set = handlers.get(topic) ?? new Set();
      set.add(handler);
      handlers.set(topic, set);
      return () => set.delete(handler);
    },
  };
}
