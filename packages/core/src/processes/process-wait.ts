import type { ProcessesApi } from '../host/host-api';
import { awaitSettled } from './await-settled';
import { requireProcessId, validateWaitOptions } from './process-input';
import type { ProcessParts } from './process-parts';

/**
 * `wait`: until the process is idle, or waits for an approval. A run of this host is awaited in memory; a run of another host, or work in the shared
 * queue, is followed in the store until it ends, this host takes it, or no live host runs it.
 */
export function createProcessWait(parts: ProcessParts): ProcessesApi['wait'] {
  const { limits, local, lookup } = parts;
  const { remote } = parts.hosts;
  const { live } = local;

  return async (rawId, rawOptions) => {
    const id = requireProcessId(rawId);
    const { timeoutMs, marginMs, signal } = validateWaitOptions(rawOptions);
    const began = performance.now();
    // Until `ended`, within what is left of the wait's timeout (a run followed on another host
    // may come here, taken from the shared queue) and within the run's own timeout plus the
    // margin, counted from when it started running: time in a queue never counts.
    const settle = (ended: Promise<void>, running: Promise<number>, limit: number) =>
      awaitSettled(ended, `process ${id}`, {
        ...(timeoutMs === undefined
          ? {}
          : { timeoutMs: Math.max(0, timeoutMs - (performance.now() - began)) }),
        ...(signal === undefined ? {} : { signal }),
        ...(marginMs === undefined
          ? {}
          : {
              after: {
                start: running,
                ms: limit + marginMs,
                message: `process ${id} did not finish within its timeout of ${limit} ms plus ${marginMs} ms`,
              },
            }),
        details: { processId: id },
      });
    for (;;) {
      const run = live.get(id);
      if (run) {
        // Answered from memory once the run ended, while its end is written; or once it waits for
        // a person's approval (state `waiting`, `approvalId` set), which may take minutes.
        await settle(Promise.race([run.ended, run.nextWait()]), run.running, run.timeoutMs);
        return run.result();
      }
      const record = await lookup.stored(id);
      if (record.state === 'idle' || record.state === 'waiting')
        return { ...record, ...(await lookup.storedResults(id)) };
      if (!(await remote.elsewhere(id, record.state))) {
        // Taken from the shared queue by this host meanwhile (and maybe ended): as it is now.
        if (live.has(id)) continue;
        return { ...(await lookup.stored(id)), ...(await lookup.storedResults(id)) };
      }
      // Another host runs it, or it waits in the shared queue: followed in the store until it
      // ends, this host takes it, or no live host runs it any more; then looked at again.
      const stop = new AbortController();
      let markRunning!: (at: number) => void;
      const running = new Promise<number>((resolve) => {
        markRunning = resolve;
      });
      if (record.state !== 'queued') markRunning(performance.now());
      try {
        let waiting!: () => void;
        const startsWaiting = new Promise<void>((resolve) => {
          waiting = resolve;
        });
        const followed = remote.followElsewhere(id, stop.signal, record.state, (now) => {
          if (now.state !== 'queued') markRunning(performance.now());
          if (now.state === 'waiting') waiting();
        });
        const limit = Math.min(record.timeoutMs ?? limits.defaultTimeoutMs, limits.maxTimeoutMs);
        await settle(Promise.race([followed.then(() => undefined), startsWaiting]), running, limit);
      } finally {
        stop.abort();
      }
    }
  };
}
