/** Options of {@link createEventStreamBudget}. */
export interface EventStreamBudgetOptions {
  /** Most event streams open at once. */
  readonly maxStreams: number;
  /** Most unsent event JSON all streams together may hold, in string length. */
  readonly maxBytes: number;
}

/**
 * What all `/processes/:id/events` streams of one app share: a count of open streams and of the
 * event JSON they hold unsent. Each stream's own `maxEventQueueBytes` bounds one slow client;
 * this bounds a hundred of them, so no number of connections can grow the server's memory
 * beyond `maxBytes` of queued events.
 */
export interface EventStreamBudget {
  /** Count one more open stream; false (and nothing counted) at the cap. */
  open(): boolean;
  /** Count a stream as closed. */
  close(): void;
  /** Reserve `bytes` of queued JSON; false (and nothing reserved) when the budget would be exceeded. */
  take(bytes: number): boolean;
  /** Release `bytes` reserved earlier. */
  give(bytes: number): void;
  /** Streams open and bytes held now, for tests and logs. */
  usage(): { streams: number; bytes: number };
}

/** Create the shared budget of one app's event streams. */
export function createEventStreamBudget(options: EventStreamBudgetOptions): EventStreamBudget {
  let streams = 0;
  let bytes = 0;
  return {
    open() {
      if (streams >= options.maxStreams) return false;
      streams++;
      return true;
    },
    close() {
      streams--;
    },
    take(size) {
      if (bytes + size > options.maxBytes) return false;
      bytes += size;
      return true;
    },
    give(size) {
      bytes -= size;
    },
    usage: () => ({ streams, bytes }),
  };
}
