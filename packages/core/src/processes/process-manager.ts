import type { EnvironmentBindings, ModuleLogger } from '@cyrnel/sdk';
import type { DirectCallsHost } from '../direct-calls/direct-calls-host';
import type { EnvironmentProvider } from '../environments/environment-provider';
import { cyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import type { ProcessHostOptions } from '../several-hosts/process-host-options';
import { createProcessHosts } from '../several-hosts/process-hosts';
import type { ToolGateway } from '../tools/tool-gateway';
import { createLocalRuns } from './local-runs';
import { createProcessBindings } from './process-bindings';
import { INTERRUPTED_ERROR } from './process-errors';
import { createProcessExecution } from './process-execution';
import { createProcessKill } from './process-kill';
import { type ProcessLimits, resolveProcessLimits } from './process-limits';
import { createProcessLookup } from './process-lookup';
import type { ProcessParts } from './process-parts';
import { createProcessReads } from './process-reads';
import { createProcessStarts } from './process-starts';
import type { HostRecord, ProcessStorage } from './process-storage';
import { createProcessSubscribe } from './process-subscribe';
import { createProcessWait } from './process-wait';

/** Options of {@link createProcessManager}. */
export interface ProcessManagerOptions {
  /** Where processes are kept (`createProcessStore` of `@cyrnel/store`). */
  readonly storage: ProcessStorage;
  /** Leases the active environment for each execution. */
  readonly environments: EnvironmentProvider;
  /** The invocation gate and discovery, for the bindings. */
  readonly tools: ToolGateway;
  /**
   * Direct calls offered to environments as `bindings.directCalls` (sandbox processes call
   * portable adapters' tools themselves); absent: none.
   */
  readonly directCalls?: DirectCallsHost;
  /** Limits; the defaults of `DEFAULT_PROCESS_LIMITS` for what is left out. */
  readonly limits?: Partial<ProcessLimits>;
  readonly logger?: ModuleLogger;
  /** Clock, for tests. */
  readonly now?: () => Date;
  /**
   * This host, when several share the storage: its runs are stored as its own, it says it is
   * alive every `heartbeatMs` (default 2,000), and it fails only its own leftovers and those of
   * hosts silent for `leaseMs` (default 10,000), at its start and at every heartbeat. Absent: the
   * storage is this host's alone, and `recover` fails every unfinished process.
   */
  readonly host?: ProcessHostOptions;
}

/** The process manager: the API, the bindings the active environment is set up with, and its lifecycle. */
export interface ProcessManager {
  readonly api: ProcessesApi;
  /** Hand these to `EnvironmentModule.setup`; calls are routed by `eid`. */
  readonly bindings: EnvironmentBindings;
  /** Record processes a previous host left unfinished as failed; call once before serving. */
  recover(): Promise<void>;
  /** Stop accepting runs, give running ones `graceMs` (default 10 s), then kill them and record them `failed`. */
  close(options?: { graceMs?: number }): Promise<void>;
  /** The other live hosts as last read (at the last heartbeat); empty without `host`. */
  peers(): readonly HostRecord[];
  /** This host's modules changed: say so now (not at the next heartbeat) and look for work it can take now. */
  modulesChanged(): Promise<void>;
}

const silentLogger: ModuleLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Create the process manager: submitted code becomes a durable, observable, cancellable process
 * run by the active environment. It coordinates the runs of this host (`local-runs.ts`,
 * `process-execution.ts`) and, with `host`, the parts shared with other hosts
 * (`../several-hosts/process-hosts.ts`); each operation of the API has a file of its own.
 *
 * @example
 * ```ts
 * const manager = createProcessManager({ storage, environments, tools });
 * await manager.recover();
 * const { id } = await manager.api.create({ code: 'cyrnel.output({ ok: true })' });
 * const result = await manager.api.wait(id);
 * ```
 */
export function createProcessManager(options: ProcessManagerOptions): ProcessManager {
  const { storage, environments, tools, host } = options;
  const limits: ProcessLimits = resolveProcessLimits(options.limits);
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const execution = createProcessExecution({ storage, limits, logger, now });
  const bindings = createProcessBindings({
    execution,
    tools,
    logger,
    now,
    ...(options.directCalls ? { directCalls: options.directCalls } : {}),
  });
  const local = createLocalRuns({
    environments,
    limits,
    execution,
    // Called only once a run has ended, long after `hosts` exists.
    ...(host ? { afterSettled: (id: number) => hosts.runSettled(id) } : {}),
  });
  const hosts = createProcessHosts({ storage, environments, limits, logger, now, host, execution, local });
  const lookup = createProcessLookup(storage, execution.live);
  const revokedKeys = new Set<string>();
  const parts: ProcessParts = {
    storage,
    limits,
    logger,
    now,
    host,
    execution,
    local,
    lookup,
    hosts,
    revokedKeys,
  };
  const api: ProcessesApi = {
    ...createProcessStarts(parts),
    wait: createProcessWait(parts),
    ...createProcessReads(parts),
    subscribe: createProcessSubscribe(parts),
    ...createProcessKill(parts),
  };

  return {
    api,
    bindings,
    async recover() {
      // Every non-idle row is a leftover only while this manager has started nothing.
      if (local.live.size > 0)
        throw cyrnelError('process_not_idle', 'recover() must run before any process starts');
      const at = now();
      const scope = await hosts.lease.recover(at);
      const count = await storage.failInterrupted(
        INTERRUPTED_ERROR,
        at.toISOString(),
        'process_interrupted',
        scope,
      );
      if (count > 0) logger.warn('process: recorded interrupted processes as failed', { count });
      if (host) hosts.start(host.id);
    },
    async close({ graceMs = 10_000 } = {}) {
      local.stopAccepting();
      hosts.stop();
      await local.shutdown(graceMs);
      // Its runs are recorded: the other hosts need not wait out its lease.
      if (host) await storage.removeHost(host.id).catch(() => undefined);
    },
    peers: () => hosts.lease.peers(),
    async modulesChanged() {
      if (!host || local.closing()) return;
      await hosts.lease.beat(host.id, now());
      hosts.queue.pump();
    },
  };
}
