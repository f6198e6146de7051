import type { ErrorReason, ProcessState } from '@cyrnel/sdk';
import type { ProcessRecord } from '@cyrnel/sdk/api';
import type { LiveProcess } from '../processes/live-process';
import type { ProcessStorage } from '../processes/process-storage';
import type { HostLease } from './host-lease';
import type { ProcessAnnouncer } from './process-announcer';
import type { ProcessHostOptions } from './process-host-options';

/** Options of {@link createRemoteRuns}. */
export interface RemoteRunsOptions {
  readonly storage: ProcessStorage;
  /** This host; absent: no run is ever elsewhere. */
  readonly host: ProcessHostOptions | undefined;
  /** This host's runs, by process id. */
  readonly live: Map<number, LiveProcess>;
  readonly now: () => Date;
  readonly lease: Pick<HostLease, 'staleBefore'>;
  /** Claims of the shared queue this host has in flight. */
  readonly claiming: () => number;
  readonly announcer: ProcessAnnouncer;
}

/**
 * Runs of other hosts and work in the shared queue, followed through the store: where a run is,
 * waiting for it to move on (woken by `process` signals, else polled), and asking its owner to
 * kill it.
 */
export interface RemoteRuns {
  /** How often a run elsewhere is read, and kill requests looked for: signals wake both sooner. */
  readonly pollMs: number;
  /**
   * True when another live host runs process `id`, when (in `state` queued without an owner) it
   * waits in the shared queue, or when this host just took it and is about to start it: follow
   * it, do not touch the row.
   */
  elsewhere(id: number, state: ProcessState): Promise<boolean>;
  /** Wake the followers of run `id` (of every run, with `null`): a signal says it changed. */
  wake(id: number | null): void;
  /**
   * Follow the stored record of a run elsewhere, read when a signal says it changed and every
   * {@link RemoteRuns.pollMs}, calling `onState` when its state moves on from `state`: resolves
   * with the record once it is idle, once this host runs it, once `stopWhen` holds of it, or as it
   * is once no live host runs it any more (undefined when it is gone or `signal` aborted).
   */
  followElsewhere(
    id: number,
    signal: AbortSignal,
    state: ProcessState,
    onState?: (record: ProcessRecord) => void,
    stopWhen?: (record: ProcessRecord) => boolean,
  ): Promise<ProcessRecord | undefined>;
  /** Ask the live host that runs `id` to kill it (for `reason`): recorded, and that host told at once. */
  requestKill(id: number, at: string, reason?: ErrorReason): Promise<void>;
}

/** Create the following of runs elsewhere. */
export function createRemoteRuns(options: RemoteRunsOptions): RemoteRuns {
  const { storage, host, live, now, lease, claiming, announcer } = options;
  const pollMs = host?.signals ? 1_000 : 100;

  const elsewhere = async (id: number, state: ProcessState): Promise<boolean> => {
    if (!host || live.has(id)) return false;
    const owner = await storage.owner(id);
    if (!owner) return false;
    if (owner.hostId === null) return state === 'queued';
    // Taken by this host: started meanwhile (its followers move to the run in memory), or its
    // claim is written and its answer not read yet.
    if (owner.hostId === host.id) return live.has(id) || claiming() > 0;
    return owner.heartbeatAt !== null && owner.heartbeatAt >= lease.staleBefore(now());
  };

  /** Followers of runs elsewhere, woken by a signal about their process (or all, by `null`). */
  const wakers = new Map<number, Set<() => void>>();
  const wake = (id: number | null) => {
    for (const [key, set] of wakers) if (id === null || key === id) for (const fn of set) fn();
  };
  const sleep = (id: number, ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const set = wakers.get(id) ?? new Set();
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && wakers.get(id) === set) wakers.delete(id);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      set.add(done);
      wakers.set(id, set);
      signal.addEventListener('abort', done, { once: true });
    });

  const followElsewhere: RemoteRuns['followElsewhere'] = async (
    id,
    signal,
    state,
    onState = () => {},
    stopWhen = () => false,
  ) => {
    for (;;) {
      if (signal.aborted) return undefined;
      const record = await storage.get(id);
      if (
        !record ||
        record.state === 'idle' ||
        live.has(id) ||
        stopWhen(record) ||
        !(await elsewhere(id, record.state))
      )
        return record;
      if (record.state !== state) {
        state = record.state;
        onState(record);
      }
      await sleep(id, pollMs, signal);
    }
  };

  return {
    pollMs,
    elsewhere,
    wake,
    followElsewhere,
    async requestKill(id, at, reason) {
      await storage.requestKill(id, at, reason);
      announcer.announce({ kill: id });
    },
  };
}
