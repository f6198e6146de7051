import type { ProcessesApi } from '../host/host-api';
import { requireProcessId } from './process-input';
import type { ProcessParts } from './process-parts';
import { storedEvents } from './stored-events';

/**
 * `subscribe`: a live run's events (replay, then live); a run that ended replayed from the store;
 * a run elsewhere followed through the other hosts; an idle process that never ran followed into
 * its next run.
 */
export function createProcessSubscribe(parts: ProcessParts): ProcessesApi['subscribe'] {
  const { storage, local, lookup, host } = parts;
  const { remote, events } = parts.hosts;
  const { live } = local;

  return async (rawId, listener) => {
    const id = requireProcessId(rawId);
    // A run that ended (`wait` answers before its end is written) is replayed from the store.
    const run = live.get(id);
    if (run && !run.finished) return run.subscribe(listener);
    if (run) await run.settled;
    const record = await lookup.stored(id);
    const results = record.exitState === null ? undefined : await storage.results(id);
    const started = live.get(id);
    if (started) return started.subscribe(listener);
    const replay = storedEvents(record, results);
    for (const event of replay) listener(event);
    if (replay.at(-1)?.type === 'exit') return () => {};
    const away = record.state !== 'idle' && (await remote.elsewhere(id, record.state));
    if (!away && record.state !== 'idle') {
      // Taken from the shared queue by this host meanwhile (and maybe ended): as it is now.
      const here = live.get(id);
      if (here) return here.subscribe(listener);
      const now = await lookup.stored(id);
      if (now.state === 'idle' && now.exitState !== null) {
        for (const event of storedEvents(now, await storage.results(id))) listener(event);
        return () => {};
      }
      // Another host's run whose heartbeat looks stale (a busy host misses its lease for a
      // moment): followed as that host's run, streamed if its owner still answers, else ended as
      // interrupted. This host will never run it, so waiting for it here would never end.
      if (now.state !== 'idle' && now.state !== 'queued' && now.hostId !== null && now.hostId !== host?.id)
        return events.follow(id, now, listener);
    }
    // Another host runs it, or it waits in the shared queue.
    if (away) return events.follow(id, record, listener);
    return local.awaitRun(id, listener);
  };
}
