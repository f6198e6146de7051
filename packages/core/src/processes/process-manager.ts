import type { EnvironmentBindings, ModuleLogger } from '@cyrnel/sdk';
import type { ProcessRecord } from '@cyrnel/sdk/api';
import type { EnvironmentLease, EnvironmentProvider } from '../environment-provider';
import {
  ConflictError,
  NotFoundError,
  TooManyProcessesError,
  UnavailableError,
  ValidationError,
} from '../errors';
import type { ProcessesApi } from '../host';
import type { ToolGateway } from '../tool-gateway';
import { awaitSettled } from './await-settled';
import { LiveProcess, type ProcessListener } from './live-process';
import { createProcessBindings } from './process-bindings';
import { createProcessExecution } from './process-execution';
import { DEFAULT_PROCESS_LIMITS, type ProcessLimits } from './process-limits';
import { toProcessPage, toStorageQuery } from './process-list-query';
import type { ProcessStorage } from './process-storage';
import { storedEvents } from './stored-events';
import { validateCreateRequest } from './validate-create-request';

/** The error recorded on processes a stopped host left unfinished. */
export const INTERRUPTED_ERROR = 'interrupted: the host stopped before the process finished';
/** The error recorded on processes ended by a kill. */
export const KILLED_ERROR = 'canceled by a kill request';
/** The error recorded on processes still running when the shutdown grace period ended. */
export const SHUTDOWN_ERROR = 'canceled: the host shut down before the process finished';

/** Options of {@link createProcessManager}. */
export interface ProcessManagerOptions {
  /** Where processes are kept (`createProcessStore` of `@cyrnel/store`). */
  readonly storage: ProcessStorage;
  /** Leases the active environment for each execution. */
  readonly environments: EnvironmentProvider;
  /** The invocation gate and discovery, for the bindings. */
  readonly tools: ToolGateway;
  /** Limits; SPEC §9 defaults for what is left out. */
  readonly limits?: Partial<ProcessLimits>;
  readonly logger?: ModuleLogger;
  /** Clock, for tests. */
  readonly now?: () => Date;
}

/** The process manager: the API, the bindings the active environment is set up with, and its lifecycle. */
export interface ProcessManager {
  readonly api: ProcessesApi;
  /** Hand these to `EnvironmentModule.setup`; calls are routed by `eid`. */
  readonly bindings: EnvironmentBindings;
  /** Record processes a previous host left unfinished as failed; call once before serving. */
  recover(): Promise<void>;
  /** Stop accepting runs, give running ones `graceMs` (default 10 s), then kill and record them. */
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
  const limits: ProcessLimits = { ...DEFAULT_PROCESS_LIMITS, ...options.limits };
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const execution = createProcessExecution({ storage, limits, logger, now });
  const bindings = createProcessBindings({ execution, tools, logger, now });
  const { live } = execution;
  /** Subscribers of idle processes that have not run yet: they follow the next run. */
  const waiting = new Map<number, Set<ProcessListener>>();
  let reserved = 0;
  let closing = false;

  const reserve = (): EnvironmentLease => {
    if (closing) throw new UnavailableError('the host is shutting down');
    if (execution.unfinished() + reserved >= limits.maxLiveProcesses) {
      throw new TooManyProcessesError(`too many live processes (at most ${limits.maxLiveProcesses})`);
    }
    const lease = environments.lease();
    if (!lease) throw new UnavailableError('no environment is active');
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
    if (!record) throw new NotFoundError(`process ${id} not found`);
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
    if (await activeRun(id)) throw new ConflictError(`process ${id} is not idle`);
    const record = await stored(id);
    if (record.state !== 'idle') throw new ConflictError(`process ${id} is not idle`);
    return storedResults(id);
  };

  const api: ProcessesApi = {
    async create(request) {
      if (closing) throw new UnavailableError('the host is shutting down');
      const valid = validateCreateRequest(request, limits);
      const lease = valid.autorun ? reserve() : undefined;
      if (lease) reserved++;
      const createdAt = now().toISOString();
      const state = lease ? 'queued' : 'idle';
      let id: number;
      try {
        const { code, ref, timeoutMs, envConfig } = valid;
        id = await storage.insert({ code, ref, timeoutMs, envConfig, state, createdAt });
      } catch (error) {
        lease?.release();
        throw error;
      } finally {
        if (lease) reserved--;
      }
      const record: ProcessRecord = {
        id,
        ref: valid.ref,
        state,
        exitState: null,
        error: null,
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

    async wait(id, waitOptions) {
      const run = live.get(id);
      if (!run) return { ...(await stored(id)), ...(await storedResults(id)) };
      await awaitSettled(run.settled, `process ${id}`, waitOptions);
      return run.result();
    },

    async list(query) {
      const storageQuery = toStorageQuery(query);
      const rows = await storage.list({ ...storageQuery, limit: storageQuery.limit + 1 });
      return toProcessPage(rows, storageQuery.limit, (row) => ({ ...(live.get(row.id)?.record ?? row) }));
    },

    async get(id) {
      const run = live.get(id);
      return run ? { ...run.record } : stored(id);
    },

    async code(id) {
      const run = live.get(id);
      if (run) return run.code;
      const code = await storage.code(id);
      if (code === undefined) throw new NotFoundError(`process ${id} not found`);
      return code;
    },

    stdout: async (id) => (await idleResults(id)).stdout,
    stderr: async (id) => (await idleResults(id)).stderr,
    output: async (id) => (await idleResults(id)).output,

    async calls(id) {
      const run = await activeRun(id);
      if (run) return run.calls.map((call) => ({ ...call }));
      await stored(id);
      return storage.calls(id);
    },

    async subscribe(id, listener) {
      const run = live.get(id);
      if (run) return run.subscribe(listener);
      const record = await stored(id);
      const results = record.exitState === null ? undefined : await storage.results(id);
      const started = live.get(id);
      if (started) return started.subscribe(listener);
      const events = storedEvents(record, results);
      for (const event of events) listener(event);
      if (events.at(-1)?.type === 'exit') return () => {};
      const set = waiting.get(id) ?? new Set();
      set.add(listener);
      waiting.set(id, set);
      return () => {
        waiting.get(id)?.delete(listener);
        live.get(id)?.listeners.delete(listener);
      };
    },

    async run(id, runOptions = {}) {
      const force = runOptions.force ?? false;
      if (typeof force !== 'boolean') {
        throw new ValidationError('force must be a boolean', [
          { path: '/force', message: 'must be a boolean' },
        ]);
      }
      if (await activeRun(id)) throw new ConflictError(`process ${id} is not idle`);
      const record = await stored(id);
      if (record.state !== 'idle') throw new ConflictError(`process ${id} is not idle`);
      if (record.exitState !== null && !force) {
        throw new ConflictError(`process ${id} has results: run it with force to clear them`);
      }
      const code = (await storage.code(id)) ?? '';
      if (live.has(id)) throw new ConflictError(`process ${id} is not idle`);
      const lease = reserve();
      const updatedAt = now().toISOString();
      const change = {
        state: 'queued',
        exitState: null,
        error: null,
        startedAt: null,
        completedAt: null,
        updatedAt,
      } as const;
      const run = new LiveProcess({ ...record, ...change }, code, limits);
      run.persist(
        () => storage.reset(id, change),
        (error) => logger.error('process: storage write failed', { id, error: String(error) }),
      );
      launch(run, lease);
      return { ...record, ...change };
    },

    async kill(id) {
      const run = await activeRun(id);
      if (run) {
        execution.terminate(run, 'canceled', KILLED_ERROR);
        return { ...run.record };
      }
      const record = await stored(id);
      if (record.state === 'idle') throw new ConflictError(`process ${id} is idle`);
      // A non-idle row no run of this host owns (left by another host): record the kill.
      const at = now().toISOString();
      const change = {
        state: 'idle',
        exitState: 'canceled',
        error: KILLED_ERROR,
        completedAt: at,
        updatedAt: at,
      } as const;
      await storage.update(id, change);
      return { ...record, ...change };
    },

    async delete(id) {
      if (await activeRun(id)) throw new ConflictError(`process ${id} is not idle`);
      const record = await stored(id);
      if (record.state !== 'idle') throw new ConflictError(`process ${id} is not idle`);
      await storage.delete(id);
      waiting.delete(id);
    },
  };

  return {
    api,
    bindings,
    async recover() {
      // Every non-idle row is a leftover only while this manager has started nothing.
      if (live.size > 0) throw new ConflictError('recover() must run before any process starts');
      const count = await storage.failInterrupted(INTERRUPTED_ERROR, now().toISOString());
      if (count > 0) logger.warn('process: recorded interrupted processes as failed', { count });
    },
    async close({ graceMs = 10_000 } = {}) {
      closing = true;
      const settledAll = () => Promise.all([...live.values()].map((run) => run.settled));
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([settledAll(), grace]);
      clearTimeout(timer);
      for (const run of live.values()) execution.terminate(run, 'canceled', SHUTDOWN_ERROR);
      await settledAll();
    },
  };
}
