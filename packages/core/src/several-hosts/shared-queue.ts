import type { ModuleLogger } from '@cyrnel/sdk';
import type { EnvironmentProvider } from '../environments/environment-provider';
import { cyrnelError } from '../errors';
import { LiveProcess } from '../processes/live-process';
import type { LocalRuns } from '../processes/local-runs';
import { DEFAULT_HOST_SLOTS, type ProcessLimits } from '../processes/process-limits';
import type { ClaimedProcess, ProcessChange, ProcessStorage } from '../processes/process-storage';
import type { HostLease } from './host-lease';
import type { ProcessAnnouncer } from './process-announcer';
import type { ProcessHostOptions } from './process-host-options';

/** Options of {@link createSharedQueue}. */
export interface SharedQueueOptions {
  readonly storage: ProcessStorage;
  readonly environments: EnvironmentProvider;
  readonly limits: ProcessLimits;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** This host; absent: every run is taken here and nothing is queued for others. */
  readonly host: ProcessHostOptions | undefined;
  readonly local: LocalRuns;
  /** The live peers and the modules this host lacks, as the last heartbeat read them. */
  readonly lease: Pick<HostLease, 'peers' | 'lacking'>;
  readonly announcer: ProcessAnnouncer;
}

/**
 * The shared queue: work a host cannot take now (no free slot while another host is alive, or a
 * module it lacks that another live host has) is stored `queued` without an owner, and taken by
 * the first host that can (`storage.claim`, oldest first) when a `queue` signal arrives, when
 * one of its runs ends while work was seen waiting, and at every poll.
 */
export interface SharedQueue {
  /** The modules a run of `code` needs (none without a host or without `host.needs`). */
  needsOf(code: string): Promise<string[]>;
  /** Whether this host runs work needing `needs` now, rather than leave it to the shared queue. */
  takesHere(needs: readonly string[]): boolean;
  /** Refuse work the shared queue has no room for (it counts against the live limits, per key too). */
  checkRoom(keyId: string | null): Promise<void>;
  /** Work was queued here: tell the other hosts and look for what this host can take. */
  announceQueued(): void;
  /** Work may wait in the shared queue: take what this host can. */
  see(): void;
  /** A run of this host ended: its slot takes queued work if some was seen waiting. */
  afterRunEnded(): void;
  /** Record a kill of work still in the shared queue; false when a host took it first. */
  killUnclaimed(id: number, change: ProcessChange): Promise<boolean>;
  /** Claims this host has in flight (their rows may say this host already). */
  claiming(): number;
  /** Take queued work while this host has free slots; one pass at a time. */
  pump(): void;
  /** Take work from now on (after recovery); until then the queue is left alone. */
  start(): void;
}

/** Create the shared queue of this host. */
export function createSharedQueue(options: SharedQueueOptions): SharedQueue {
  const { storage, environments, limits, logger, now, host, local, lease, announcer } = options;
  const slots = Math.max(1, host?.slots ?? DEFAULT_HOST_SLOTS);
  let started = false;
  /** Claims on the shared queue this host has in flight (their rows may say this host already). */
  let claiming = 0;
  /** Work may wait in the shared queue: set by signals, polls and this host's own queued work. */
  let queueSeen = false;
  let pumping = false;
  let pumpAgain = false;

  const needsOf = async (code: string): Promise<string[]> =>
    host?.needs ? [...new Set(await host.needs(code))].filter((id) => id !== '' && !id.includes(',')) : [];

  /**
   * It has what the work needs, and a free slot or no other live host to hand it to (then its
   * environment queues it, as a single host always did).
   */
  const takesHere = (needs: readonly string[]): boolean =>
    !host ||
    (needs.every((id) => !lease.lacking().has(id)) && (lease.peers().length === 0 || local.held() < slots));

  const checkRoom = async (keyId: string | null): Promise<void> => {
    if (local.closing()) throw cyrnelError('shutting_down', 'the host is shutting down');
    if ((await storage.countUnclaimed()) >= limits.maxLiveProcesses)
      throw cyrnelError(
        'too_many_processes',
        `too many processes wait for a host (at most ${limits.maxLiveProcesses})`,
      );
    if (
      keyId !== null &&
      (await storage.countUnclaimed(keyId)) + local.liveOfKey(keyId) >= limits.maxLiveProcessesPerKey
    )
      throw cyrnelError(
        'too_many_processes',
        `too many live processes for this key (at most ${limits.maxLiveProcessesPerKey} queued, running or terminating per key)`,
      );
  };

  const see = (): void => {
    queueSeen = true;
    pump();
  };
  const announceQueued = (): void => {
    announcer.publish('queue', '');
    see();
  };

  const launchClaimed = ({ record, code, traceContext }: ClaimedProcess): void => {
    const lease = environments.lease();
    if (!lease) {
      // The environment went away since the claim: give the work back to the queue.
      void storage
        .update(record.id, { ownerHost: null, updatedAt: now().toISOString() })
        .then(() => announceQueued())
        .catch((error: unknown) =>
          logger.error('process: giving work back failed', { id: record.id, error: String(error) }),
        );
      return;
    }
    const run = new LiveProcess(record, code, limits);
    run.traceContext = traceContext ?? null;
    run.claimed = true;
    local.launch(run, lease);
  };

  /** Take queued work while this host has free slots; one pass at a time. */
  const pump = (): void => {
    if (!host || !started || local.closing()) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    void (async () => {
      do {
        pumpAgain = false;
        const free = Math.min(16, slots - local.held());
        if (free <= 0 || !environments.active()) return;
        claiming++;
        let claimed: ClaimedProcess[];
        try {
          claimed = await storage.claim(host.id, now().toISOString(), {
            limit: free,
            lacking: [...lease.lacking()],
          });
        } finally {
          claiming--;
        }
        for (const item of claimed) launchClaimed(item);
        if (claimed.length === free) pumpAgain = true;
        else queueSeen = false;
      } while (pumpAgain && !local.closing());
    })()
      .catch((error: unknown) => logger.error('process: taking queued work failed', { error: String(error) }))
      .finally(() => {
        pumping = false;
      });
  };

  return {
    needsOf,
    takesHere,
    checkRoom,
    announceQueued,
    see,
    afterRunEnded() {
      if (queueSeen) pump();
    },
    async killUnclaimed(id, change) {
      if (!(await storage.updateUnclaimed(id, change))) return false;
      announcer.announce({ id });
      return true;
    },
    claiming: () => claiming,
    pump,
    start() {
      started = true;
    },
  };
}
