import type { EnvironmentStats } from '@cyrnel/sdk';
import { atMost } from '../at-most';
import type { EgressStats } from '../gateway/egress-gateway';
import type { SchemaCheckerStats } from '../validation/schema-checker';

/** The states a run not finished can be in, and how many of this host's runs are in each. */
export type LiveStates = Record<'queued' | 'running' | 'waiting' | 'terminating', number>;

/**
 * What a host is doing now (`CyrnelHost.stats()`), for metrics: this host's own runs, queues and
 * workers, and the length of the queue the hosts of a shared database share.
 */
export interface HostStats {
  /** This host's runs not finished, by state (`queued`, `running`, `waiting`, `terminating`). */
  readonly processes: Readonly<LiveStates>;
  /**
   * Processes queued in the storage without a host yet: the shared queue that every host of one
   * database takes work from (one database: the same number on every host; 0 for a host without
   * a host id, which has none). Null when it could not be read (the database is out of reach).
   */
  readonly sharedQueue: number | null;
  /**
   * The other live hosts of the shared database as this host last saw them (at its last heartbeat):
   * while it sees none it runs everything submitted to it, whatever its slots. 0 without a host id.
   */
  readonly peers: number;
  /** Tool calls of this host's runs waiting for a person's approval. */
  readonly approvalsPending: number;
  /** The egress gateway's workers: threads, calls in flight, restarts. */
  readonly egress: EgressStats;
  /** The schema validation workers of the host's thread: slots, busy ones, checks queued, timeouts. */
  readonly validation: SchemaCheckerStats;
  /** The active environment's sandboxes, when it reports them (`EnvironmentModule.stats`); else null. */
  readonly environment: EnvironmentStats | null;
}

/** Where {@link readHostStats} reads from: the host's parts. */
export interface HostStatsSources {
  liveStates(): LiveStates;
  countUnclaimed(): Promise<number>;
  peers(): number;
  approvalsPending(): number;
  egress(): EgressStats;
  validation(): SchemaCheckerStats;
  environment(): EnvironmentStats | undefined;
}

/** How long the shared queue's count may take before a scrape goes on without it. */
const QUEUE_READ_MS = 2000;

/**
 * Read the host's stats: everything in memory at once, the shared queue's length from the storage
 * (null when it fails or takes longer than two seconds, so a scrape never hangs on the database).
 */
export async function readHostStats(sources: HostStatsSources): Promise<HostStats> {
  const sharedQueue = await atMost(
    sources.countUnclaimed().catch(() => null),
    QUEUE_READ_MS,
    null,
  );
  let environment: EnvironmentStats | null = null;
  try {
    environment = sources.environment() ?? null;
  } catch {
    // An environment that cannot say is left out of this scrape.
  }
  return {
    processes: sources.liveStates(),
    sharedQueue,
    peers: sources.peers(),
    approvalsPending: sources.approvalsPending(),
    egress: sources.egress(),
    validation: sources.validation(),
    environment,
  };
}
