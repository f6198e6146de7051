import type { ModuleLogger } from '@cyrnel/sdk';
import type { EnvironmentProvider } from '../environments/environment-provider';
import type { LocalRuns } from '../processes/local-runs';
import type { ProcessExecution } from '../processes/process-execution';
import type { ProcessLimits } from '../processes/process-limits';
import type { ProcessStorage } from '../processes/process-storage';
import { createHostLease, type HostLease } from './host-lease';
import { createKillRequests } from './kill-requests';
import {
  createProcessAnnouncer,
  type ProcessAnnouncer,
  parseJson,
  parseProcessSignal,
} from './process-announcer';
import type { ProcessHostOptions } from './process-host-options';
import { createEventStreams, parseStreamMessage } from './remote-events';
import { createRemoteRunEvents, type RemoteRunEvents } from './remote-run-events';
import { createRemoteRuns, type RemoteRuns } from './remote-runs';
import { createSharedQueue, type SharedQueue } from './shared-queue';

/** Options of {@link createProcessHosts}. */
export interface ProcessHostsOptions {
  readonly storage: ProcessStorage;
  readonly environments: EnvironmentProvider;
  readonly limits: ProcessLimits;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** This host; absent: the storage is this host's alone (every part then keeps out of the way). */
  readonly host: ProcessHostOptions | undefined;
  readonly execution: ProcessExecution;
  readonly local: LocalRuns;
}

/** The process manager's parts for several hosts on one storage, and their timers and signals. */
export interface ProcessHosts {
  readonly announcer: ProcessAnnouncer;
  /** Heartbeats, peers, the sweep of silent hosts and the fence of this one. */
  readonly lease: HostLease;
  /** Work left for any host, and this host's claims. */
  readonly queue: SharedQueue;
  /** Where a run is, waiting for a run elsewhere, kills asked of other hosts. */
  readonly remote: RemoteRuns;
  /** The events of runs elsewhere for subscribers here. */
  readonly events: RemoteRunEvents;
  /** A run of this host has its end persisted: followers elsewhere read it now; its slot takes queued work. */
  runSettled(id: number): void;
  /** Beat, poll and listen from now on (after recovery), then take the queued work this host can. */
  start(hostId: string): void;
  /** Stop the timers and the signals, and wake every follower (each looks once more). */
  stop(): void;
}

/** Create the several-hosts parts of a process manager. */
export function createProcessHosts(options: ProcessHostsOptions): ProcessHosts {
  const { storage, environments, limits, logger, now, host, execution, local } = options;
  const { live } = local;
  const signals = host?.signals;
  const announcer = createProcessAnnouncer(signals, logger);
  const lease = createHostLease({ storage, host, execution, logger, now, closing: local.closing });
  const queue = createSharedQueue({
    storage,
    environments,
    limits,
    logger,
    now,
    host,
    local,
    lease,
    announcer,
  });
  const remote = createRemoteRuns({ storage, host, live, now, lease, claiming: queue.claiming, announcer });
  const streams = signals ? createEventStreams(signals, logger) : undefined;
  const events = createRemoteRunEvents({ storage, host, live, logger, remote, streams });
  const kills = createKillRequests(storage, local, logger);
  const timers: NodeJS.Timeout[] = [];
  const unsubscribe: (() => void)[] = [];

  const start = (hostId: string): void => {
    queue.start();
    const every = (ms: number, task: () => void) => {
      const timer = setInterval(task, ms);
      timer.unref();
      timers.push(timer);
    };
    every(lease.heartbeatMs, () => lease.heartbeat(hostId));
    // Kills asked on other hosts for runs of this one, and the shared queue, as backstops of signals.
    // Only other hosts ask for kills: alone (a SQLite file, or the last host), nothing to look for.
    every(remote.pollMs, () => {
      if (lease.peers().length > 0) kills.take(hostId);
    });
    every(Math.max(10, host?.queuePollMs ?? 2_000), queue.see);
    if (signals) {
      unsubscribe.push(
        signals.subscribe('queue', queue.see),
        signals.subscribe('process', (payload) => {
          if (payload === null) {
            remote.wake(null);
            kills.take(hostId);
            return;
          }
          const value = parseJson(payload);
          const stream = parseStreamMessage(value);
          if (stream) {
            streams?.handle(stream, (id) => live.get(id));
            return;
          }
          const message = parseProcessSignal(value);
          if (message?.kill !== undefined) kills.take(hostId);
          if (message?.id !== undefined) remote.wake(message.id);
        }),
      );
    }
    queue.pump();
  };

  return {
    announcer,
    lease,
    queue,
    remote,
    events,
    runSettled(id) {
      announcer.announce({ id });
      queue.afterRunEnded();
    },
    start,
    stop() {
      for (const timer of timers) clearInterval(timer);
      for (const stop of unsubscribe) stop();
      remote.wake(null);
    },
  };
}
