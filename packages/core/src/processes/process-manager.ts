import type { EnvironmentBindings, ModuleLogger, ProcessState } from '@cyrnel/sdk';
import type { ProcessRecord, ProcessSummary } from '@cyrnel/sdk/api';
import type { DirectCallsHost } from '../direct-calls/direct-calls-host';
import type { EnvironmentLease, EnvironmentProvider } from '../environment-provider';
import { cyrnelError } from '../errors';
import type { ProcessesApi } from '../host';
import { timerDelay } from '../timer-delay';
import type { ToolGateway } from '../tool-gateway';
import { awaitSettled } from './await-settled';
import { LiveProcess, type ProcessListener } from './live-process';
import { createProcessBindings } from './process-bindings';
import { createProcessExecution } from './process-execution';
import { requireProcessId, validateRunOptions, validateWaitOptions } from './process-input';
import { type ProcessLimits, resolveProcessLimits } from './process-limits';
import { toProcessPage, toStorageQuery } from './process-list-query';
import type { ProcessStorage } from './process-storage';
import { storedEvents } from './stored-events';
import { validateCreateRequest } from './validate-create-request';

/** The error recorded on processes a stopped host left unfinished. */
export const INTERRUPTED_ERROR = 'interrupted: the host stopped before the process finished';
/** The error recorded on processes ended by a kill. */
export const KILLED_ERROR = 'canceled by a kill request';
/** The error recorded (exit `failed`) on processes still live when the shutdown grace period ended. */
export const SHUTDOWN_ERROR = 'interrupted: the host shut down before the process finished';
/** The error of the `exit` event that ends the subscriptions of a never-run process when it is deleted. */
export const DELETED_ERROR = 'the process was deleted before it ran';

/** Options of {@link createProcessManager}. */
export interface ProcessManagerOptions {
  /** Where processes are kept (`createProcessStore` of `@cyrnel/store`). */
  readonly storage: ProcessStorage;
  /** Leases the active environment for each execution. */
  readonly environments: EnvironmentProvider;
  /** The invocation gate and discovery, for the bindings. */
  readonly tools: ToolGateway;
  /** Direct calls (issue 21) offered to environments as `bindings.directCalls`; absent: none. */
  readonly directCalls?: DirectCallsHost;
  /** Limits; SPEC §9 defaults for what is left out. */
  readonly limits?: Partial<ProcessLimits>;
  readonly logger?: ModuleLogger;
  /** Clock, for tests. */
  readonly now?: () => Date;
  /**
   * This host, when several share the storage (issue 22): its runs are stored as its own, it
   * says it is alive every `heartbeatMs` (default 2,000), and it fails only its own leftovers and
   * those of hosts silent for `leaseMs` (default 10,000), at its start and at every heartbeat.
   * Absent: the storage is this host's alone, and `recover` fails every unfinished process.
   */
  readonly host?: { readonly id: string; readonly heartbeatMs?: number; readonly leaseMs?: number };
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
}

const silentLogger: ModuleLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Create the process manager of SPEC §3 "Processes".
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
  const { storage, environments, tools } = options;
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
  const { live } = execution;
  /** Subscribers of idle processes that have not run yet: they follow the next run. */
  const waiting = new Map<number, Set<ProcessListener>>();
  let reserved = 0;
  /** Creates between their reservation and their launch, per key id. */
  const reservedByKey = new Map<string, number>();
  let closing = false;

  const liveOfKey = (keyId: string): number => {
    let count = reservedByKey.get(keyId) ?? 0;
    for (const run of live.values()) if (!run.finished && run.record.keyId === keyId) count++;
    return count;
  };

  const reserve = (keyId: string | null): EnvironmentLease => {
    if (closing) throw cyrnelError('shutting_down', 'the host is shutting down');
    if (execution.unfinished() + reserved >= limits.maxLiveProcesses) {
      throw cyrnelError('too_many_processes', `too many live processes (at most ${limits.maxLiveProcesses})`);
    }
    // Issue 13: one key cannot take every slot; processes without a key only meet the global bound.
    if (keyId !== null && liveOfKey(keyId) >= limits.maxLiveProcessesPerKey) {
      throw cyrnelError(
        'too_many_processes',
        `too many live processes for this key (at most ${limits.maxLiveProcessesPerKey} queued, running or terminating per key)`,
      );
    }
    const lease = environments.lease();
    if (!lease) throw cyrnelError('module_unavailable', 'no environment is active');
    return lease;
  };

  const launch = (run: LiveProcess, lease: EnvironmentLease): void => {
    const id = run.record.id;
    for (const listener of waiting.get(id) ?? []) run.listeners.add(listener);
    waiting.delete(id);
    run.emit({ type: 'state', data: { state: run.record.state, exitState: null } });
    execution.start(run, lease);
  };

  const stored = async (id: number): Promise<ProcessRecord> => {
    const record = await storage.get(id);
    if (!record) throw cyrnelError('process_not_found', `process ${id} not found`);
    return record;
  };

  /** The live run of `id` unless it has ended; an ended one is awaited until persisted. */
  const activeRun = async (id: number): Promise<LiveProcess | undefined> => {
    const run = live.get(id);
    if (!run) return undefined;
    if (!run.finished) return run;
    await run.settled;
    return undefined;
  };

  const storedResults = async (id: number) =>
    (await storage.results(id)) ?? { output: {}, stdout: '', stderr: '' };

  const idleResults = async (id: number) => {
    if (await activeRun(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    const record = await stored(id);
    if (record.state !== 'idle') throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    return storedResults(id);
  };

  const api: ProcessesApi = {
    async create(request, createOptions) {
      if (closing) throw cyrnelError('shutting_down', 'the host is shutting down');
      const valid = validateCreateRequest(request, limits);
      const keyId = createOptions?.keyId ?? null;
      const lease = valid.autorun ? reserve(keyId) : undefined;
      if (lease) {
        reserved++;
        if (keyId !== null) reservedByKey.set(keyId, (reservedByKey.get(keyId) ?? 0) + 1);
      }
      const createdAt = now().toISOString();
      const state = lease ? 'queued' : 'idle';
      let id: number;
      try {
        const { code, ref, timeoutMs, envConfig } = valid;
        id = await storage.insert({
          code,
          ref,
          keyId,
          timeoutMs,
          envConfig,
          state,
          createdAt,
          ...(options.host ? { ownerHost: options.host.id } : {}),
        });
      } catch (error) {
        lease?.release();
        throw error;
      } finally {
        if (lease) {
          reserved--;
          if (keyId !== null) {
            const left = (reservedByKey.get(keyId) ?? 1) - 1;
            if (left === 0) reservedByKey.delete(keyId);
            else reservedByKey.set(keyId, left);
          }
        }
      }
      const record: ProcessRecord = {
        id,
        ref: valid.ref,
        keyId,
        state,
        exitState: null,
        error: null,
        errorReason: null,
        timeoutMs: valid.timeoutMs,
        envConfig: valid.envConfig,
        createdAt,
        updatedAt: createdAt,
        startedAt: null,
        completedAt: null,
      };
      if (lease) launch(new LiveProcess({ ...record }, valid.code, limits), lease);
      return record;
    },

    async wait(rawId, rawOptions) {
      const id = requireProcessId(rawId);
      const { timeoutMs, marginMs, signal } = validateWaitOptions(rawOptions);
      const run = live.get(id);
      if (!run) {
        const record = await stored(id);
        if (record.state !== 'idle' && (await runElsewhere(id))) {
          // Run by another host: its end is read from the store once written.
          const stop = new AbortController();
          const limit = Math.min(record.timeoutMs ?? limits.defaultTimeoutMs, limits.maxTimeoutMs);
          try {
            const ended = followElsewhere(id, stop.signal, record.state).then(() => undefined);
            await awaitSettled(ended, `process ${id}`, {
              ...(timeoutMs === undefined ? {} : { timeoutMs }),
              ...(signal === undefined ? {} : { signal }),
              ...(marginMs === undefined
                ? {}
                : {
                    after: {
                      start: Promise.resolve(performance.now()),
                      ms: limit + marginMs,
                      message: `process ${id} did not finish within its timeout of ${limit} ms plus ${marginMs} ms`,
                    },
                  }),
              details: { processId: id },
            });
          } finally {
            stop.abort();
          }
        }
        return { ...(await stored(id)), ...(await storedResults(id)) };
      }
      const limit = run.timeoutMs;
      // The margin bound starts when the run does: time queued behind a busy pool never counts.
      const after =
        marginMs === undefined
          ? undefined
          : {
              start: run.running,
              ms: limit + marginMs,
              message: `process ${id} did not finish within its timeout of ${limit} ms plus ${marginMs} ms`,
            };
      // Answered from memory once the run ended, while its end is written.
      await awaitSettled(run.ended, `process ${id}`, {
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(signal === undefined ? {} : { signal }),
        ...(after === undefined ? {} : { after }),
        details: { processId: id },
      });
      return run.result();
    },

    async list(query) {
      const storageQuery = toStorageQuery(query);
      // The store catches up with the runs in memory first, then answers alone: filtering on
      // stored states while showing live ones could list a `running` filter's match as idle.
      await Promise.all(
        [...live.values()].map((run) => {
          execution.flushDeferred(run);
          return run.persisted;
        }),
      );
      const rows = await storage.list({ ...storageQuery, limit: storageQuery.limit + 1 });
      // A storage that still hands back `envConfig` must not leak it into the page.
      return toProcessPage(
        rows,
        storageQuery.limit,
        ({ envConfig: _envConfig, ...row }: ProcessSummary & { envConfig?: unknown }) => row,
      );
    },

    async get(rawId) {
      const id = requireProcessId(rawId);
      const run = live.get(id);
      return run ? { ...run.record } : stored(id);
    },

    async code(rawId) {
      const id = requireProcessId(rawId);
      const run = live.get(id);
      if (run) return run.code;
      const code = await storage.code(id);
      if (code === undefined) throw cyrnelError('process_not_found', `process ${id} not found`);
      return code;
    },

    stdout: async (id) => (await idleResults(requireProcessId(id))).stdout,
    stderr: async (id) => (await idleResults(requireProcessId(id))).stderr,
    output: async (id) => (await idleResults(requireProcessId(id))).output,

    async calls(rawId) {
      const id = requireProcessId(rawId);
      const run = await activeRun(id);
      if (run) return run.calls.map((call) => ({ ...call }));
      // Calls exist only for a stored process: its existence is checked only when there are none.
      const calls = await storage.calls(id);
      if (calls.length === 0) await stored(id);
      return calls;
    },

    async subscribe(rawId, listener) {
      const id = requireProcessId(rawId);
      // A run that ended (`wait` answers before its end is written) is replayed from the store.
      const run = live.get(id);
      if (run && !run.finished) return run.subscribe(listener);
      if (run) await run.settled;
      const record = await stored(id);
      const results = record.exitState === null ? undefined : await storage.results(id);
      const started = live.get(id);
      if (started) return started.subscribe(listener);
      const events = storedEvents(record, results);
      for (const event of events) listener(event);
      if (events.at(-1)?.type === 'exit') return () => {};
      if (await runElsewhere(id)) {
        // Run by another host: its states as they are stored, then its results once written (an
        // owner that stops beating, or a failed read, ends it as interrupted).
        const stop = new AbortController();
        const end = async (last: ProcessRecord | undefined) => {
          if (stop.signal.aborted) return;
          if (last) for (const event of storedEvents(last, await storage.results(id))) listener(event);
          if (last?.state !== 'idle')
            listener({
              type: 'exit',
              data: { exitState: 'failed', error: INTERRUPTED_ERROR, errorReason: 'process_interrupted' },
            });
        };
        void followElsewhere(id, stop.signal, record.state, (now) =>
          listener({ type: 'state', data: { state: now.state, exitState: now.exitState } }),
        )
          .catch((error: unknown) => {
            logger.warn('process: following a run of another host failed', { id, error: String(error) });
            return undefined;
          })
          .then(end);
        return () => stop.abort();
      }
      const set = waiting.get(id) ?? new Set();
      set.add(listener);
      waiting.set(id, set);
      return () => {
        waiting.get(id)?.delete(listener);
        live.get(id)?.listeners.delete(listener);
      };
    },

    async run(rawId, runOptions) {
      const id = requireProcessId(rawId);
      const { force } = validateRunOptions(runOptions);
      if (await activeRun(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
      const record = await stored(id);
      if (record.state !== 'idle') throw cyrnelError('process_not_idle', `process ${id} is not idle`);
      if (record.exitState !== null && !force) {
        throw cyrnelError(
          'process_has_results',
          `process ${id} has results: run it with force to clear them`,
        );
      }
      const code = (await storage.code(id)) ?? '';
      if (live.has(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
      const lease = reserve(record.keyId);
      const updatedAt = now().toISOString();
      const change = {
        state: 'queued',
        exitState: null,
        error: null,
        errorReason: null,
        startedAt: null,
        completedAt: null,
        updatedAt,
      } as const;
      const run = new LiveProcess({ ...record, ...change }, code, limits);
      run.persist(
        () => storage.reset(id, options.host ? { ...change, ownerHost: options.host.id } : change),
        (error) => logger.error('process: storage write failed', { id, error: String(error) }),
      );
      launch(run, lease);
      return { ...record, ...change };
    },

    async kill(rawId) {
      const id = requireProcessId(rawId);
      const run = await activeRun(id);
      if (run) {
        execution.terminate(run, 'canceled', KILLED_ERROR, 'process_killed');
        return { ...run.record };
      }
      const record = await stored(id);
      if (record.state === 'idle') throw cyrnelError('process_not_running', `process ${id} is idle`);
      // Another live host runs it: that host kills it (it looks for requests several times a second).
      if (await runElsewhere(id)) {
        await storage.requestKill(id, now().toISOString());
        return record;
      }
      // A non-idle row no live host runs (left by a host that stopped): record the kill.
      const at = now().toISOString();
      const change = {
        state: 'idle',
        exitState: 'canceled',
        error: KILLED_ERROR,
        errorReason: 'process_killed',
        completedAt: at,
        updatedAt: at,
      } as const;
      await storage.update(id, change);
      return { ...record, ...change };
    },

    async delete(rawId) {
      const id = requireProcessId(rawId);
      if (await activeRun(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
      const record = await stored(id);
      if (record.state !== 'idle') throw cyrnelError('process_not_idle', `process ${id} is not idle`);
      await storage.delete(id);
      // Followers of a process that never ran would wait for a run that cannot come: end them.
      const followers = waiting.get(id) ?? new Set();
      waiting.delete(id);
      for (const listener of followers) {
        try {
          listener({
            type: 'exit',
            data: { exitState: 'canceled', error: DELETED_ERROR, errorReason: 'process_killed' },
          });
        } catch {
          // A failing subscriber must not fail the delete.
        }
      }
    },
  };

  /** How often a host looks at a process another host runs (wait, events) or for kills asked of it. */
  const REMOTE_POLL_MS = 100;

  /** True when another live host runs process `id` (issue 22): ask it, do not touch the row. */
  const runElsewhere = async (id: number): Promise<boolean> => {
    const host = options.host;
    if (!host) return false;
    const owner = await storage.owner(id);
    return (
      owner?.hostId !== undefined &&
      owner.hostId !== null &&
      owner.hostId !== host.id &&
      owner.heartbeatAt !== null &&
      owner.heartbeatAt >= staleBefore(now())
    );
  };

  /**
   * Follow the stored record of a run another host owns, every REMOTE_POLL_MS, calling `onState`
   * when its state moves on from `state`: resolves with the record once it is idle, or as it is
   * once no live host runs it any more (undefined when it is gone or `signal` aborted).
   */
  const followElsewhere = async (
    id: number,
    signal: AbortSignal,
    state: ProcessState,
    onState: (record: ProcessRecord) => void = () => {},
  ): Promise<ProcessRecord | undefined> => {
    for (;;) {
      if (signal.aborted) return undefined;
      const record = await storage.get(id);
      if (!record || record.state === 'idle' || !(await runElsewhere(id))) return record;
      if (record.state !== state) {
        state = record.state;
        onState(record);
      }
      await new Promise((resolve) => setTimeout(resolve, REMOTE_POLL_MS).unref());
    }
  };

  // Several hosts (issue 22): this one's heartbeat, and the runs of hosts that went silent.
  const heartbeatMs = Math.max(10, options.host?.heartbeatMs ?? 2_000);
  const leaseMs = Math.max(heartbeatMs * 2, options.host?.leaseMs ?? 10_000);
  const staleBefore = (at: Date) => new Date(at.getTime() - leaseMs).toISOString();
  let heartbeat: NodeJS.Timeout | undefined;
  let killPoll: NodeJS.Timeout | undefined;
  let beating = false;
  const startHeartbeat = (hostId: string) => {
    heartbeat = setInterval(() => {
      if (beating || closing) return;
      beating = true;
      void (async () => {
        const at = now();
        await storage.heartbeat(hostId, at.toISOString());
        const count = await storage.failInterrupted(
          INTERRUPTED_ERROR,
          at.toISOString(),
          'process_interrupted',
          { staleBefore: staleBefore(at) },
        );
        if (count > 0)
          logger.warn('process: recorded the processes of a silent host as failed', { count, leaseMs });
      })()
        .catch((error: unknown) => logger.error('process: heartbeat failed', { error: String(error) }))
        .finally(() => {
          beating = false;
        });
    }, heartbeatMs);
    heartbeat.unref();
    // Kills asked on other hosts for runs of this one.
    let taking = false;
    killPoll = setInterval(() => {
      if (taking || closing || live.size === 0) return;
      taking = true;
      void storage
        .takeKillRequests(hostId)
        .then((ids) => {
          for (const id of ids) {
            const run = live.get(id);
            if (run && !run.finished) execution.terminate(run, 'canceled', KILLED_ERROR, 'process_killed');
          }
        })
        .catch((error: unknown) =>
          logger.error('process: reading kill requests failed', { error: String(error) }),
        )
        .finally(() => {
          taking = false;
        });
    }, REMOTE_POLL_MS);
    killPoll.unref();
  };

  return {
    api,
    bindings,
    async recover() {
      // Every non-idle row is a leftover only while this manager has started nothing.
      if (live.size > 0)
        throw cyrnelError('process_not_idle', 'recover() must run before any process starts');
      const at = now();
      const host = options.host;
      if (host) await storage.heartbeat(host.id, at.toISOString());
      const count = await storage.failInterrupted(
        INTERRUPTED_ERROR,
        at.toISOString(),
        'process_interrupted',
        host ? { hostId: host.id, staleBefore: staleBefore(at), unowned: true } : undefined,
      );
      if (count > 0) logger.warn('process: recorded interrupted processes as failed', { count });
      if (host) startHeartbeat(host.id);
    },
    async close({ graceMs = 10_000 } = {}) {
      closing = true;
      clearInterval(heartbeat);
      clearInterval(killPoll);
      const settledAll = () => Promise.all([...live.values()].map((run) => run.settled));
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timerDelay(graceMs));
      });
      await Promise.race([settledAll(), grace]);
      clearTimeout(timer);
      // Issue 8: a run the shutdown interrupts is `failed`, as after a crash, not `canceled`.
      for (const run of live.values())
        execution.terminate(run, 'failed', SHUTDOWN_ERROR, 'process_interrupted');
      await settledAll();
      // Its runs are recorded: the other hosts need not wait out its lease.
      if (options.host) await storage.removeHost(options.host.id).catch(() => undefined);
    },
  };
}
