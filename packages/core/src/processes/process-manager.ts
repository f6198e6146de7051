import type { EnvironmentBindings, ModuleLogger } from '@cyrnel/sdk';
import type { ConnectionRouter } from '../connections/connection-router';
import type { EnvironmentProvider } from '../environments/environment-provider';
import type { TypeCheck } from '../environments/type-check';
import { cyrnelError } from '../errors';
import type { EgressGateway } from '../gateway/egress-gateway';
import type { ProcessesApi } from '../host/host-api';
import type { HostMetrics } from '../metrics/host-metrics';
import type { LiveStates } from '../metrics/host-stats';
import type { Redactor } from '../secrets/redactor';
import type { ProcessHostOptions } from '../several-hosts/process-host-options';
import { createProcessHosts } from '../several-hosts/process-hosts';
import { createTracing, type TracingOptions } from '../telemetry/tracing';
import type { ToolGateway } from '../tools/tool-gateway';
import { createCallRecords, type OpenedCall } from './call-records';
import { createLateCalls } from './late-calls';
import { createLocalRuns } from './local-runs';
import { createProcessBindings } from './process-bindings';
import { createProcessChecks } from './process-checks';
import { INTERRUPTED_ERROR } from './process-errors';
import { createProcessExecution } from './process-execution';
import { createProcessKill } from './process-kill';
import { type ProcessLimits, resolveProcessLimits } from './process-limits';
import { createProcessLookup } from './process-lookup';
import type { ProcessParts, ProcessPolicies } from './process-parts';
import { createProcessPlans } from './process-plans';
import { createProcessReads } from './process-reads';
import { createProcessRetention } from './process-retention';
import { createProcessStarts } from './process-starts';
import type { HostRecord, ProcessStorage } from './process-storage';
import { createProcessSubscribe } from './process-subscribe';
import { createProcessWait } from './process-wait';
import { createRunCheckpoints } from './run-checkpoints';

/** Options of {@link createProcessManager}. */
export interface ProcessManagerOptions {
  /** Where processes are kept (`createProcessStore` of `@cyrnel/store`). */
  readonly storage: ProcessStorage;
  /** Leases the active environment for each execution. */
  readonly environments: EnvironmentProvider;
  /** The invocation gate and discovery, for the bindings. */
  readonly tools: ToolGateway;
  /**
   * The egress gateway: its calls are audited in the runs' call records, and environments get
   * channels to it as `bindings.directCalls` unless `directCalls` is false.
   */
  readonly egress?: EgressGateway;
  readonly directCalls?: boolean;
  /** Limits; the defaults of `DEFAULT_PROCESS_LIMITS` for what is left out. */
  readonly limits?: Partial<ProcessLimits>;
  readonly logger?: ModuleLogger;
  /** Removes the secrets the host holds from errors, output and events of runs. */
  readonly redactor?: Redactor;
  /** Clock, for tests. */
  readonly now?: () => Date;
  /** The policies every call passes, approvals and plans (absent: every call is allowed). */
  readonly policies?: ProcessPolicies;
  /** Which connection each call uses (absent: every call uses its service's own secrets). */
  readonly connections?: Pick<ConnectionRouter, 'route' | 'check'>;
  /** Type-checks code (`createTypeCheck`; absent: `check` and `typecheck: 'reject'` answer 503). */
  readonly typeCheck?: TypeCheck;
  /** Told of every run's end and every tool call's (absent: nobody). */
  readonly metrics?: HostMetrics;
  /**
   * This host, when several share the storage: its runs are stored as its own, it says it is
   * alive every `heartbeatMs` (default 2,000), and it fails only its own leftovers and those of
   * hosts silent for `leaseMs` (default 10,000), at its start and at every heartbeat. Absent: the
   * storage is this host's alone, and `recover` fails every unfinished process.
   */
  readonly host?: ProcessHostOptions;
  /**
   * Spans of runs and their tool calls through the global OpenTelemetry API (see
   * `TracingOptions`); a queued process keeps its caller's trace context, so the host that runs it
   * continues that trace. Absent: nothing is traced.
   */
  readonly tracing?: TracingOptions;
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
  /**
   * Prune idle processes past the retention now (`retentionMs`, `retentionPerKey`), as the
   * background pass that `recover` starts does; answers how many were deleted.
   */
  prune(): Promise<number>;
  /**
   * Record a tool call of execution `eid` made outside the bindings (an egress gateway): resolves
   * once its start is stored, so send the request only then, and call `end` with its outcome.
   * Rejects with `process_not_running` when the execution is not running here, and with the
   * storage's error when the start could not be stored (then do not send it).
   *
   * @example
   * ```ts
   * const call = await manager.openCall(eid, 'shop', 'getUser');
   * const response = await fetch(url).catch((error) => { call.end({ ok: false, errorReason: 'upstream_failed' }); throw error; });
   * call.end({ ok: response.ok });
   * ```
   */
  openCall(eid: number, serviceId: string, toolId: string): Promise<OpenedCall>;
  /** This host's runs not finished, by state (for metrics). */
  liveStates(): LiveStates;
  /**
   * Resolves once the end of every run that ended on this host is in the storage (`wait` answers
   * from memory before it is): what reads the storage alone, like the service stats, waits for it
   * so a run just answered is counted.
   */
  endsWritten(): Promise<void>;
}

export type { LiveStates };

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
  const { storage, environments, tools, host, egress } = options;
  const limits: ProcessLimits = resolveProcessLimits(options.limits);
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const { metrics } = options;
  const tracing = createTracing(options.tracing, host?.id);
  const execution = createProcessExecution({
    storage,
    limits,
    logger,
    now,
    tracing,
    ...(metrics ? { metrics } : {}),
    ...(egress ? { endsRead: () => egress.endsRead() } : {}),
  });
  const records = createCallRecords(storage, logger, now, metrics);
  const bindings = createProcessBindings({
    execution,
    tools,
    logger,
    now,
    records,
    late: createLateCalls(storage, logger),
    checkpoints: createRunCheckpoints(storage, logger),
    ...(options.egress ? { egress: options.egress } : {}),
    ...(options.directCalls === false ? { directCalls: false } : {}),
    ...(options.redactor ? { redactor: options.redactor } : {}),
    ...(options.policies ? { policy: options.policies.calls } : {}),
    ...(options.connections ? { connections: options.connections } : {}),
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
  const retention = createProcessRetention({
    storage,
    limits,
    logger,
    now,
    ...(options.policies ? { approvals: options.policies.approvalStorage } : {}),
  });
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
    policies: options.policies,
    connections: options.connections,
    typeCheck: options.typeCheck,
    tracing,
  };
  const api: ProcessesApi = {
    ...createProcessStarts(parts),
    plan: createProcessPlans(parts),
    check: createProcessChecks(parts),
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
      retention.start();
    },
    async close({ graceMs = 10_000 } = {}) {
      local.stopAccepting();
      hosts.stop();
      await retention.stop();
      await local.shutdown(graceMs);
      // Its runs are recorded: the other hosts need not wait out its lease.
      if (host) await storage.removeHost(host.id).catch(() => undefined);
    },
    peers: () => hosts.lease.peers(),
    prune: () => retention.prune(),
    async openCall(eid, serviceId, toolId) {
      const run = execution.live.get(eid);
      if (!run || run.finished) throw cyrnelError('process_not_running', `execution ${eid} is not running`);
      const call = records.open(run, String(serviceId), String(toolId));
      await call.started;
      return call;
    },
    liveStates() {
      const states: LiveStates = { queued: 0, running: 0, waiting: 0, terminating: 0 };
      for (const run of execution.live.values()) {
        const { state } = run.record;
        if (!run.finished && state !== 'idle') states[state]++;
      }
      return states;
    },
    async endsWritten() {
      const ended = [...execution.live.values()].filter((run) => run.finished);
      await Promise.all(ended.map((run) => run.settled));
    },
    async modulesChanged() {
      if (!host || local.closing()) return;
      await hosts.lease.beat(host.id, now());
      hosts.queue.pump();
    },
  };
}
