/** Where a request to shut down came from. */
export type ShutdownSource = 'signal' | 'launcher' | 'orphaned';

/** What the binary does about one request: begin the graceful shutdown, nothing, or exit now. */
export type ShutdownDecision = 'stop' | 'ignore' | 'force';

/** Counts shutdown requests per source. */
export interface ShutdownRequests {
  /** Record a request from `source` and decide. */
  request(source: ShutdownSource): ShutdownDecision;
}

/**
 * Decide on SIGINT/SIGTERM and launcher messages. A terminal's Ctrl-C reaches the server and
 * the launcher (which forwards it over IPC), so one press arrives once per source: the first
 * request stops gracefully, a second one from a source already heard forces the exit. The
 * launcher vanishing (`orphaned`) only ever stops gracefully.
 */
export function createShutdownRequests(): ShutdownRequests {
  const heard = new Set<ShutdownSource>();
  let stopping = false;
  return {
    request(source) {
      if (source !== 'orphaned' && heard.has(source)) return 'force';
      heard.add(source);
      if (stopping) return 'ignore';
      stopping = true;
      return 'stop';
    },
  };
}
