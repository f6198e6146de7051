import type { HostSignals } from './host-signals';

/**
 * This host among several on one storage (see `ProcessManagerOptions.host`): its runs are stored
 * as its own, it says it is alive every `heartbeatMs`, and it fails only its own leftovers and
 * those of hosts silent for `leaseMs`.
 */
export interface ProcessHostOptions {
  readonly id: string;
  /** How often this host says it is alive, in ms; default 2,000. */
  readonly heartbeatMs?: number;
  /** How long a host may be silent before its runs are recorded as failed, in ms; default 10,000. */
  readonly leaseMs?: number;
  /**
   * Runs this host holds at once (queued with its environment or running) before it leaves new
   * work in the shared queue for another host; default 32.
   */
  readonly slots?: number;
  /** Look at the shared queue this often without a signal, in ms; default 2,000. */
  readonly queuePollMs?: number;
  /** Wake-ups between hosts (queued work, ended runs, kills); absent: polls only. */
  readonly signals?: HostSignals;
  /**
   * The modules a run of `code` needs (the environment, the adapters of the services it names):
   * work this host lacks one of (that another live host has) goes to the shared queue.
   */
  readonly needs?: (code: string) => Promise<readonly string[]>;
  /** The modules whose code this host has, by id with their status; written with every heartbeat. */
  readonly modules?: () => Readonly<Record<string, string>>;
}
