import type { ModuleLogger } from '@cyrnel/sdk';
import { INTERRUPTED_ERROR } from '../processes/process-errors';
import type { ProcessExecution } from '../processes/process-execution';
import type { HostRecord, InterruptedScope, ProcessStorage } from '../processes/process-storage';
import type { ProcessHostOptions } from './process-host-options';

/** Options of {@link createHostLease}. */
export interface HostLeaseOptions {
  readonly storage: ProcessStorage;
  /** This host; absent: the storage is this host's alone and nothing is leased. */
  readonly host: ProcessHostOptions | undefined;
  readonly execution: ProcessExecution;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** True once the manager closes: no heartbeat is written any more. */
  readonly closing: () => boolean;
}

/**
 * Recovery and fencing between hosts: this host's heartbeat (with the modules it has), what it
 * reads of the others at each beat (the live peers, the modules they have that it lacks), the
 * sweep of the runs of hosts silent for longer than the lease, and the fence of a host that was
 * itself silent that long: it sweeps no one that time and stops its runs that another host
 * recorded as ended meanwhile.
 */
export interface HostLease {
  readonly heartbeatMs: number;
  readonly leaseMs: number;
  /** The ISO time before which a heartbeat is stale, seen at `at`. */
  staleBefore(at: Date): string;
  /** The other live hosts as last read (at the last heartbeat); empty without a host. */
  peers(): readonly HostRecord[];
  /** The modules the other live hosts have active and this one has not, as last read. */
  lacking(): ReadonlySet<string>;
  /** Write this host's heartbeat and modules, and read the others'. */
  beat(hostId: string, at: Date): Promise<void>;
  /**
   * At the start: beat (it counts as the last heartbeat), then answer which unfinished runs are
   * leftovers to fail (this host's own, those of silent hosts, those without an owner that had
   * started); undefined without a host: every one of them.
   */
  recover(at: Date): Promise<InterruptedScope | undefined>;
  /** One heartbeat, unless the previous one is still being written. */
  heartbeat(hostId: string): void;
}

/** Create the heartbeat and lease of this host. */
export function createHostLease(options: HostLeaseOptions): HostLease {
  const { storage, host, execution, logger, now } = options;
  const { live } = execution;
  const heartbeatMs = Math.max(10, host?.heartbeatMs ?? 2_000);
  const leaseMs = Math.max(heartbeatMs * 2, host?.leaseMs ?? 10_000);
  const staleBefore = (at: Date) => new Date(at.getTime() - leaseMs).toISOString();
  /** The other live hosts as last read, and the modules they have active that this host has not. */
  let peers: HostRecord[] = [];
  let lacking = new Set<string>();
  let beating = false;
  /** When this host last wrote its heartbeat (ms since the epoch, by `now`). */
  let lastBeat: number | undefined;

  const beat = async (hostId: string, at: Date): Promise<void> => {
    const modules = host?.modules?.();
    await storage.heartbeat(hostId, at.toISOString(), modules);
    peers = (await storage.hosts(staleBefore(at))).filter((peer) => peer.id !== hostId);
    const mine = modules ?? {};
    const next = new Set<string>();
    for (const peer of peers)
      for (const [id, status] of Object.entries(peer.modules))
        if (status === 'active' && mine[id] !== 'active') next.add(id);
    lacking = next;
  };

  /** End the runs of this host whose stored record another host ended (as it recorded them). */
  const stopRunsEndedElsewhere = async (): Promise<void> => {
    for (const run of [...live.values()]) {
      if (run.finished) continue;
      const stored = await storage.get(run.record.id);
      if (stored?.state !== 'idle' || run.finished) continue;
      logger.warn('process: another host recorded a run of this one as ended while this one was silent', {
        id: run.record.id,
        leaseMs,
      });
      execution.terminate(
        run,
        stored.exitState ?? 'failed',
        stored.error ?? INTERRUPTED_ERROR,
        stored.errorReason ?? 'process_interrupted',
      );
    }
  };

  const heartbeat = (hostId: string): void => {
    if (beating || options.closing()) return;
    beating = true;
    void (async () => {
      const at = now();
      // Silent itself for longer than the lease (a pause, the database out of reach): the
      // others' heartbeats may be as stale for the same reason, so no sweep this time; and
      // runs of this host another host recorded as failed meanwhile stop here too.
      const continuous = lastBeat !== undefined && at.getTime() - lastBeat <= leaseMs;
      await beat(hostId, at);
      lastBeat = at.getTime();
      if (!continuous) {
        await stopRunsEndedElsewhere();
        return;
      }
      const count = await storage.failInterrupted(
        INTERRUPTED_ERROR,
        at.toISOString(),
        'process_interrupted',
        {
          staleBefore: staleBefore(at),
        },
      );
      if (count > 0)
        logger.warn('process: recorded the processes of a silent host as failed', { count, leaseMs });
    })()
      .catch((error: unknown) => logger.error('process: heartbeat failed', { error: String(error) }))
      .finally(() => {
        beating = false;
      });
  };

  return {
    heartbeatMs,
    leaseMs,
    staleBefore,
    peers: () => peers,
    lacking: () => lacking,
    beat,
    async recover(at) {
      if (!host) return undefined;
      await beat(host.id, at);
      lastBeat = at.getTime();
      return { hostId: host.id, staleBefore: staleBefore(at), unowned: true };
    },
    heartbeat,
  };
}
