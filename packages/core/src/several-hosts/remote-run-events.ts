import type { ModuleLogger, ProcessState } from '@cyrnel/sdk';
import type { ProcessRecord } from '@cyrnel/sdk/api';
import type { LiveProcess, ProcessListener } from '../processes/live-process';
import { INTERRUPTED_EXIT } from '../processes/process-errors';
import type { ProcessStorage } from '../processes/process-storage';
import { storedEvents } from '../processes/stored-events';
import type { ProcessHostOptions } from './process-host-options';
import { type EventStreams, REPLAY_WAIT_MS } from './remote-events';
import type { RemoteRuns } from './remote-runs';

/** Options of {@link createRemoteRunEvents}. */
export interface RemoteRunEventsOptions {
  readonly storage: ProcessStorage;
  readonly host: ProcessHostOptions | undefined;
  /** This host's runs, by process id. */
  readonly live: Map<number, LiveProcess>;
  readonly logger: ModuleLogger;
  readonly remote: Pick<RemoteRuns, 'elsewhere' | 'followElsewhere'>;
  /** The event streams between hosts; absent (no signals): states are read from the store. */
  readonly streams: EventStreams | undefined;
}

/** The events of a run elsewhere (another host's, or waiting in the shared queue) for a subscriber here. */
export interface RemoteRunEvents {
  /**
   * Follow run `id` (stored as `record`) for `listener`: streamed by its owner when it can be,
   * else its states as they are stored, then its results once written; a run this host takes
   * meanwhile is followed here. An owner that stops beating, or a failed read, ends it as
   * interrupted. Answers the unsubscribe.
   */
  follow(id: number, record: ProcessRecord, listener: ProcessListener): () => void;
}

/** Create the following of the events of runs elsewhere. */
export function createRemoteRunEvents(options: RemoteRunEventsOptions): RemoteRunEvents {
  const { storage, host, live, logger, remote, streams } = options;
  const { elsewhere, followElsewhere } = remote;

  /**
   * Follow the events of run `id` of another host as its owner streams them (replay, then live):
   * true once the stream ended it for `listener` (exit included), false when the owner does not
   * stream (nothing was delivered then). An owner that goes away mid-stream ends it as
   * interrupted; an output too large to stream is read from the store before the exit.
   */
  const streamFrom = async (
    id: number,
    listener: ProcessListener,
    signal: AbortSignal,
    state: ProcessState,
  ): Promise<boolean> => {
    if (!streams) return false;
    const stream = streams.open(id, listener);
    const polling = new AbortController();
    const stopPolling = () => polling.abort();
    signal.addEventListener('abort', stopPolling, { once: true });
    try {
      if (!(await stream.established)) return false;
      // The owner's end (idle, or gone) as the store says it, beside the stream's own exit.
      const settledInStore = followElsewhere(id, polling.signal, state);
      let exit = await Promise.race([stream.exited, settledInStore.then(() => undefined)]);
      if (!exit && !signal.aborted)
        exit = await Promise.race([
          stream.exited,
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), REPLAY_WAIT_MS).unref()),
        ]);
      if (signal.aborted) return true;
      if (exit) {
        if (stream.outputSkipped()) {
          await followElsewhere(id, signal, 'running');
          const results = await storage.results(id);
          if (results && Object.keys(results.output).length > 0)
            listener({ type: 'output', data: { patch: results.output } });
        }
        listener(exit);
        return true;
      }
      // No exit over the stream: as the store says it ended, or interrupted (its owner is gone).
      const last = await storage.get(id);
      listener(
        last?.state === 'idle' && last.exitState !== null
          ? {
              type: 'exit',
              data: { exitState: last.exitState, error: last.error, errorReason: last.errorReason },
            }
          : INTERRUPTED_EXIT,
      );
      return true;
    } finally {
      polling.abort();
      signal.removeEventListener('abort', stopPolling);
      stream.close();
    }
  };

  return {
    follow(id, record, listener) {
      const stop = new AbortController();
      let detach: (() => void) | undefined;
      const follow = async () => {
        let state = record.state;
        let tried = false;
        const onState = (now: ProcessRecord) => {
          state = now.state;
          listener({ type: 'state', data: { state: now.state, exitState: now.exitState } });
        };
        // Owned by another host: its events can be streamed (once tried; polls otherwise).
        const streamable = (now: ProcessRecord | undefined) =>
          streams !== undefined &&
          !tried &&
          now !== undefined &&
          now.state !== 'idle' &&
          now.hostId !== null &&
          now.hostId !== host?.id;
        for (;;) {
          const current = await storage.get(id);
          if (stop.signal.aborted) return;
          if (streamable(current)) {
            tried = true;
            if (await streamFrom(id, listener, stop.signal, state)) return;
          }
          await followElsewhere(id, stop.signal, state, onState, streamable);
          if (stop.signal.aborted) return;
          const here = live.get(id);
          if (here) {
            detach = here.subscribe(listener);
            return;
          }
          const last = await storage.get(id);
          if (streamable(last)) continue;
          if (last && last.state !== 'idle' && (await elsewhere(id, last.state))) continue;
          if (stop.signal.aborted) return;
          if (last) for (const event of storedEvents(last, await storage.results(id))) listener(event);
          if (last?.state !== 'idle') listener(INTERRUPTED_EXIT);
          return;
        }
      };
      void follow().catch((error: unknown) => {
        logger.warn('process: following a run of another host failed', { id, error: String(error) });
        if (!stop.signal.aborted) listener(INTERRUPTED_EXIT);
      });
      return () => {
        stop.abort();
        detach?.();
      };
    },
  };
}
