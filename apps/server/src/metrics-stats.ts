import type { HostStats } from '@cyrnel/core';
import { Counter, Gauge, type Registry } from 'prom-client';

/** How long one reading of the host's stats serves the gauges of a scrape. */
const SNAPSHOT_MS = 500;

/**
 * The host's stats read once per scrape (`host.stats()`: the memory of this host, and one count of
 * the shared queue from the database) however many gauges ask; `undefined` while no host is set
 * or when reading failed, which leaves the gauges out of that scrape.
 */
function snapshots(read: () => Promise<HostStats> | undefined): () => Promise<HostStats | undefined> {
  let pending: Promise<HostStats | undefined> | undefined;
  let at = Number.NEGATIVE_INFINITY;
  return () => {
    if (!pending || performance.now() - at > SNAPSHOT_MS) {
      at = performance.now();
      pending = Promise.resolve(read()).catch(() => undefined);
    }
    return pending;
  };
}

/**
 * A counter mirroring a count the host keeps (worker restarts, sandbox deaths): raised by what
 * the count grew since the last scrape; a count that went back (a replaced environment starts
 * again from 0) is taken as a reset.
 */
function mirrored(
  registry: Registry,
  name: string,
  help: string,
  snapshot: () => Promise<HostStats | undefined>,
  read: (stats: HostStats) => number | undefined,
): void {
  let last = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    async collect() {
      const stats = await snapshot();
      const now = stats && read(stats);
      if (now === undefined) return;
      this.inc(now >= last ? now - last : now);
      last = now;
    },
  });
}

/** A gauge set from the stats at every scrape. */
function gauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  snapshot: () => Promise<HostStats | undefined>,
  set: (gauge: Gauge<L>, stats: HostStats) => void,
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      const stats = await snapshot();
      this.reset();
      if (stats) set(this, stats);
    },
  });
}

/**
 * The gauges of what the host is doing now, read from `host.stats()` at every scrape: this host's
 * runs by state, the shared queue's length, the approvals its runs wait for, the egress gateway's
 * and the validation workers' load, and the sandboxes of the active environment. Answers the
 * setter of the host (known once it started).
 *
 * @example
 * ```ts
 * const watch = statsMetrics(registry);
 * watch(() => host.stats());
 * ```
 */
export function statsMetrics(registry: Registry): (read: () => Promise<HostStats>) => void {
  let source: (() => Promise<HostStats>) | undefined;
  const snapshot = snapshots(() => source?.());
  const add = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    set: (gauge: Gauge<L>, stats: HostStats) => void,
  ) => gauge(registry, name, help, labelNames, snapshot, set);
  add(
    'cyrnel_processes',
    "This host's runs not finished, by state (queued, running, waiting, terminating)",
    ['state'],
    (g, s) => {
      for (const [state, count] of Object.entries(s.processes)) g.set({ state }, count);
    },
  );
  add(
    'cyrnel_queue_depth',
    'Processes in the shared queue, waiting for a host (the same on every host of one database)',
    [],
    (g, s) => {
      if (s.sharedQueue !== null) g.set(s.sharedQueue);
    },
  );
  add(
    'cyrnel_peer_hosts',
    'Other live hosts of the shared database, as this host saw them at its last heartbeat (none: it runs everything submitted to it)',
    [],
    (g, s) => {
      g.set(s.peers);
    },
  );
  add(
    'cyrnel_approvals_pending',
    "Tool calls of this host's runs waiting for a person's approval",
    [],
    (g, s) => g.set(s.approvalsPending),
  );
  add(
    'cyrnel_egress_workers',
    "Worker threads of the egress gateway (portable adapters' calls)",
    [],
    (g, s) => g.set(s.egress.workers),
  );
  add('cyrnel_egress_calls_in_flight', 'Tool calls the egress gateway workers are making now', [], (g, s) =>
    g.set(s.egress.inFlight),
  );
  mirrored(
    registry,
    'cyrnel_egress_worker_restarts_total',
    'Egress gateway workers that died (out of memory, a crash) and were replaced',
    snapshot,
    (s) => s.egress.restarts,
  );
  add('cyrnel_validation_workers', 'Schema validation worker slots of the host', [], (g, s) =>
    g.set(s.validation.workers),
  );
  add('cyrnel_validation_busy_workers', 'Schema validation workers checking a value now', [], (g, s) =>
    g.set(s.validation.busy),
  );
  add('cyrnel_validation_queue_depth', 'Schema checks waiting for a free validation worker', [], (g, s) =>
    g.set(s.validation.queued),
  );
  mirrored(
    registry,
    'cyrnel_validation_timeouts_total',
    'Schema checks that missed their deadline (each cost its worker)',
    snapshot,
    (s) => s.validation.timeouts,
  );
  add(
    'cyrnel_sandbox_children',
    "The active environment's sandboxes, by state (busy, idle)",
    ['state'],
    (g, s) => {
      if (!s.environment) return;
      g.set({ state: 'idle' }, s.environment.idleSandboxes);
      g.set({ state: 'busy' }, s.environment.sandboxes - s.environment.idleSandboxes);
    },
  );
  add(
    'cyrnel_sandbox_executions',
    'Executions in the sandboxes, by state (running, queued: waiting for a sandbox)',
    ['state'],
    (g, s) => {
      if (!s.environment) return;
      g.set({ state: 'running' }, s.environment.running);
      g.set({ state: 'queued' }, s.environment.queued);
    },
  );
  mirrored(
    registry,
    'cyrnel_sandbox_pool_waits_total',
    'Executions that had to wait for a sandbox (the pool was full)',
    snapshot,
    (s) => s.environment?.waits,
  );
  mirrored(
    registry,
    'cyrnel_sandbox_crashes_total',
    'Sandboxes that died under the environment (a memory bomb, a kill from outside) and were replaced',
    snapshot,
    (s) => s.environment?.crashes,
  );
  return (read) => {
    source = read;
  };
}
