import type { EnvironmentBindings, ModuleLogger, ProcessState } from '@cyrnel/sdk';
import type { ProcessEvent, ProcessRecord, ProcessSummary } from '@cyrnel/sdk/api';
import type { DirectCallsHost } from '../direct-calls/direct-calls-host';
import type { EnvironmentLease, EnvironmentProvider } from '../environments/environment-provider';
import { cyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import type { HostSignals } from '../several-hosts/host-signals';
import { createEventStreams, parseStreamMessage, REPLAY_WAIT_MS } from '../several-hosts/remote-events';
import { timerDelay } from '../timer-delay';
import type { ToolGateway } from '../tools/tool-gateway';
import { awaitSettled } from './await-settled';
import { LiveProcess, type ProcessListener } from './live-process';
import { createProcessBindings } from './process-bindings';
import { createProcessExecution } from './process-execution';
import { requireProcessId, validateRunOptions, validateWaitOptions } from './process-input';
import { DEFAULT_HOST_SLOTS, type ProcessLimits, resolveProcessLimits } from './process-limits';
import { toProcessPage, toStorageQuery } from './process-list-query';
import type { ClaimedProcess, HostRecord, ProcessStorage } from './process-storage';
import { storedEvents } from './stored-events';
import { validateCreateRequest } from './validate-create-request';

/** The error recorded on processes a stopped host left unfinished. */
export const INTERRUPTED_ERROR = 'interrupted: the host stopped before the process finished';
/** The error recorded on processes ended by a kill. */
export const KILLED_ERROR = 'canceled by a kill request';
/** The error recorded (exit `failed`) on processes still live when the shutdown grace period ended. */
export const SHUTDOWN_ERROR = 'interrupted: the host shut down before the process finished';
/** The `exit` event of a run followed on another host whose owner stopped before it ended. */
const INTERRUPTED_EXIT: ProcessEvent = {
  type: 'exit',
  data: { exitState: 'failed', error: INTERRUPTED_ERROR, errorReason: 'process_interrupted' },
};
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
  readonly host?: ProcessHostOptions;
}

/** This host among several on one storage (issue 22); see {@link ProcessManagerOptions.host}. */
export interface ProcessHostOptions {
  readonly id: string;
  readonly heartbeatMs?: number;
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
    if (host)
      void run.settled.then(() => {
        // Followers on other hosts read the end now; a freed slot takes queued work.
        announce({ id });
        if (queueSeen) pump();
      });
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
      // Several hosts (issue 22): work this host cannot take now waits in the shared queue.
      const needs = host ? await needsOf(valid.code) : [];
      const here = valid.autorun && takesHere(needs);
      if (valid.autorun && !here) await checkQueueRoom(keyId);
      const lease = here ? reserve(keyId) : undefined;
      if (lease) {
        reserved++;
        if (keyId !== null) reservedByKey.set(keyId, (reservedByKey.get(keyId) ?? 0) + 1);
      }
      const createdAt = now().toISOString();
      const state = valid.autorun ? 'queued' : 'idle';
      const hostId = lease && host ? host.id : null;
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
          ...(host ? { ownerHost: hostId, needs } : {}),
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
        hostId,
      };
      if (lease) launch(new LiveProcess({ ...record }, valid.code, limits), lease);
      else if (valid.autorun) announceQueued();
      return record;
    },

    async wait(rawId, rawOptions) {
      const id = requireProcessId(rawId);
      const { timeoutMs, marginMs, signal } = validateWaitOptions(rawOptions);
      const began = performance.now();
      // Until `ended`, within what is left of the wait's timeout (a run followed on another host
      // may come here, taken from the shared queue) and within the run's own timeout plus the
      // margin, counted from when it started running: time in a queue never counts.
      const settle = (ended: Promise<void>, running: Promise<number>, limit: number) =>
        awaitSettled(ended, `process ${id}`, {
          ...(timeoutMs === undefined
            ? {}
            : { timeoutMs: Math.max(0, timeoutMs - (performance.now() - began)) }),
          ...(signal === undefined ? {} : { signal }),
          ...(marginMs === undefined
            ? {}
            : {
                after: {
                  start: running,
                  ms: limit + marginMs,
                  message: `process ${id} did not finish within its timeout of ${limit} ms plus ${marginMs} ms`,
                },
              }),
          details: { processId: id },
        });
      for (;;) {
        const run = live.get(id);
        if (run) {
          // Answered from memory once the run ended, while its end is written.
          await settle(run.ended, run.running, run.timeoutMs);
          return run.result();
        }
        const record = await stored(id);
        if (record.state === 'idle') return { ...record, ...(await storedResults(id)) };
        if (!(await elsewhere(id, record.state))) {
          // Taken from the shared queue by this host meanwhile (and maybe ended): as it is now.
          if (live.has(id)) continue;
          return { ...(await stored(id)), ...(await storedResults(id)) };
        }
        // Another host runs it, or it waits in the shared queue: followed in the store until it
        // ends, this host takes it, or no live host runs it any more; then looked at again.
        const stop = new AbortController();
        let markRunning!: (at: number) => void;
        const running = new Promise<number>((resolve) => {
          markRunning = resolve;
        });
        if (record.state !== 'queued') markRunning(performance.now());
        try {
          const followed = followElsewhere(id, stop.signal, record.state, (now) => {
            if (now.state !== 'queued') markRunning(performance.now());
          });
          const limit = Math.min(record.timeoutMs ?? limits.defaultTimeoutMs, limits.maxTimeoutMs);
          await settle(
            followed.then(() => undefined),
            running,
            limit,
          );
        } finally {
          stop.abort();
        }
      }
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
      const away = record.state !== 'idle' && (await elsewhere(id, record.state));
      if (!away && record.state !== 'idle') {
        // Taken from the shared queue by this host meanwhile (and maybe ended): as it is now.
        const here = live.get(id);
        if (here) return here.subscribe(listener);
        const now = await stored(id);
        if (now.state === 'idle' && now.exitState !== null) {
          for (const event of storedEvents(now, await storage.results(id))) listener(event);
          return () => {};
        }
      }
      if (away) {
        // Another host runs it, or it waits in the shared queue: its states as they are stored,
        // then its results once written; a run this host takes meanwhile is followed here. An
        // owner that stops beating, or a failed read, ends it as interrupted.
        const stop = new AbortController();
        let detach: (() => void) | undefined;
        const follow = async () => {
          let state = record.state;
          let tried = false;
          const onState = (now: ProcessRecord) => {
            state = now.state;
            listener({ type: 'state', data: { state: now.state, exitState: now.exitState } });
          };
          // Owned by another host: its events can be streamed (once tried; polls otherwise).
          const streamable = (now: ProcessRecord | undefined) =>
            streams !== undefined &&
            !tried &&
            now !== undefined &&
            now.state !== 'idle' &&
            now.hostId !== null &&
            now.hostId !== host?.id;
          for (;;) {
            const current = await storage.get(id);
            if (stop.signal.aborted) return;
            if (streamable(current)) {
              tried = true;
              if (await streamFrom(id, listener, stop.signal, state)) return;
            }
            await followElsewhere(id, stop.signal, state, onState, streamable);
            if (stop.signal.aborted) return;
            const here = live.get(id);
            if (here) {
              detach = here.subscribe(listener);
              return;
            }
            const last = await storage.get(id);
            if (streamable(last)) continue;
            if (last && last.state !== 'idle' && (await elsewhere(id, last.state))) continue;
            if (stop.signal.aborted) return;
            if (last) for (const event of storedEvents(last, await storage.results(id))) listener(event);
            if (last?.state !== 'idle') listener(INTERRUPTED_EXIT);
            return;
          }
        };
        void follow().catch((error: unknown) => {
          logger.warn('process: following a run of another host failed', { id, error: String(error) });
          if (!stop.signal.aborted) listener(INTERRUPTED_EXIT);
        });
        return () => {
          stop.abort();
          detach?.();
        };
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
      // Several hosts (issue 22): a re-run this host cannot take now waits in the shared queue.
      const here = takesHere(host ? await needsOf(code) : []);
      if (!here) await checkQueueRoom(record.keyId);
      if (live.has(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
      const lease = here ? reserve(record.keyId) : undefined;
      const updatedAt = now().toISOString();
      const change = {
        state: 'queued',
        exitState: null,
        error: null,
        errorReason: null,
        startedAt: null,
        completedAt: null,
        updatedAt,
        hostId: lease && host ? host.id : null,
      } as const;
      const { hostId, ...written } = change;
      if (!lease) {
        await storage.reset(id, { ...written, ownerHost: null });
        announceQueued();
        return { ...record, ...change };
      }
      const run = new LiveProcess({ ...record, ...change }, code, limits);
      run.persist(
        () => storage.reset(id, host ? { ...written, ownerHost: hostId } : written),
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
      const at = now().toISOString();
      const change = {
        state: 'idle',
        exitState: 'canceled',
        error: KILLED_ERROR,
        errorReason: 'process_killed',
        completedAt: at,
        updatedAt: at,
      } as const;
      // Still in the shared queue: recorded unless a host takes it first (then that host kills it).
      if (host && record.state === 'queued' && record.hostId === null) {
        if (!(await storage.updateUnclaimed(id, change))) return api.kill(id);
        announce({ id });
        return { ...record, ...change };
      }
      // Another live host runs it: that host kills it (told at once, and it looks for requests).
      if (await elsewhere(id, record.state)) {
        await storage.requestKill(id, at);
        announce({ kill: id });
        return record;
      }
      // Taken from the shared queue by this host meanwhile: killed as its own run, or already ended.
      if (live.has(id)) return api.kill(id);
      if ((await stored(id)).state === 'idle')
        throw cyrnelError('process_not_running', `process ${id} is idle`);
      // A non-idle row no live host runs (left by a host that stopped): record the kill.
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

  /** Claims on the shared queue this host has in flight (their rows may say this host already). */
  let claiming = 0;

  /**
   * True when another live host runs process `id`, when (in `state` queued without an owner) it
   * waits in the shared queue, or when this host just took it and is about to start it (issue
   * 22): follow it, do not touch the row.
   */
  const elsewhere = async (id: number, state: ProcessState): Promise<boolean> => {
    if (!host || live.has(id)) return false;
    const owner = await storage.owner(id);
    if (!owner) return false;
    if (owner.hostId === null) return state === 'queued';
    // Taken by this host: started meanwhile (its followers move to the run in memory), or its
    // claim is written and its answer not read yet.
    if (owner.hostId === host.id) return live.has(id) || claiming > 0;
    return owner.heartbeatAt !== null && owner.heartbeatAt >= staleBefore(now());
  };

  /** Followers of runs elsewhere, woken by a signal about their process (or all, by `null`). */
  const wakers = new Map<number, Set<() => void>>();
  const wake = (id: number | null) => {
    for (const [key, set] of wakers) if (id === null || key === id) for (const fn of set) fn();
  };
  const sleep = (id: number, ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const set = wakers.get(id) ?? new Set();
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && wakers.get(id) === set) wakers.delete(id);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      set.add(done);
      wakers.set(id, set);
      signal.addEventListener('abort', done, { once: true });
    });

  /**
   * Follow the stored record of a run elsewhere (another host's, or in the shared queue), read
   * when a signal says it changed and every `remotePollMs`, calling `onState` when its state
   * moves on from `state`: resolves with the record once it is idle, once this host runs it, or
   * as it is once no live host runs it any more (undefined when it is gone or `signal` aborted).
   */
  const followElsewhere = async (
    id: number,
    signal: AbortSignal,
    state: ProcessState,
    onState: (record: ProcessRecord) => void = () => {},
    /** Also resolve (with the record) once this holds of it. */
    stopWhen: (record: ProcessRecord) => boolean = () => false,
  ): Promise<ProcessRecord | undefined> => {
    for (;;) {
      if (signal.aborted) return undefined;
      const record = await storage.get(id);
      if (
        !record ||
        record.state === 'idle' ||
        live.has(id) ||
        stopWhen(record) ||
        !(await elsewhere(id, record.state))
      )
        return record;
      if (record.state !== state) {
        state = record.state;
        onState(record);
      }
      await sleep(id, remotePollMs, signal);
    }
  };

  /**
   * Follow the events of run `id` of another host as its owner streams them (replay, then live):
   * true once the stream ended it for `listener` (exit included), false when the owner does not
   * stream (nothing was delivered then). An owner that goes away mid-stream ends it as
   * interrupted; an output too large to stream is read from the store before the exit.
   */
  const streamFrom = async (
    id: number,
    listener: ProcessListener,
    signal: AbortSignal,
    state: ProcessState,
  ): Promise<boolean> => {
    if (!streams) return false;
    const stream = streams.open(id, listener);
    const polling = new AbortController();
    const stopPolling = () => polling.abort();
    signal.addEventListener('abort', stopPolling, { once: true });
    try {
      if (!(await stream.established)) return false;
      // The owner's end (idle, or gone) as the store says it, beside the stream's own exit.
      const settledInStore = followElsewhere(id, polling.signal, state);
      let exit = await Promise.race([stream.exited, settledInStore.then(() => undefined)]);
      if (!exit && !signal.aborted)
        exit = await Promise.race([
          stream.exited,
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), REPLAY_WAIT_MS).unref()),
        ]);
      if (signal.aborted) return true;
      if (exit) {
        if (stream.outputSkipped()) {
          await followElsewhere(id, signal, 'running');
          const results = await storage.results(id);
          if (results && Object.keys(results.output).length > 0)
            listener({ type: 'output', data: { patch: results.output } });
        }
        listener(exit);
        return true;
      }
      // No exit over the stream: as the store says it ended, or interrupted (its owner is gone).
      const last = await storage.get(id);
      listener(
        last?.state === 'idle' && last.exitState !== null
          ? {
              type: 'exit',
              data: { exitState: last.exitState, error: last.error, errorReason: last.errorReason },
            }
          : INTERRUPTED_EXIT,
      );
      return true;
    } finally {
      polling.abort();
      signal.removeEventListener('abort', stopPolling);
      stream.close();
    }
  };

  // Several hosts (issue 22): this one's heartbeat, the runs of hosts that went silent, the
  // shared queue, and the signals that wake hosts up.
  const heartbeatMs = Math.max(10, host?.heartbeatMs ?? 2_000);
  const leaseMs = Math.max(heartbeatMs * 2, host?.leaseMs ?? 10_000);
  const staleBefore = (at: Date) => new Date(at.getTime() - leaseMs).toISOString();
  const signals = host?.signals;
  const streams = signals ? createEventStreams(signals, logger) : undefined;
  const slots = Math.max(1, host?.slots ?? DEFAULT_HOST_SLOTS);
  /** How often a run elsewhere is read, and kill requests looked for: signals wake both sooner. */
  const remotePollMs = signals ? 1_000 : 100;
  const timers: NodeJS.Timeout[] = [];
  const unsubscribe: (() => void)[] = [];
  let started = false;
  /** The other live hosts as last read, and the modules they have active that this host has not. */
  let peers: HostRecord[] = [];
  let lacking = new Set<string>();

  const needsOf = async (code: string): Promise<string[]> =>
    host?.needs ? [...new Set(await host.needs(code))].filter((id) => id !== '' && !id.includes(',')) : [];

  /**
   * Whether this host runs work needing `needs` now, rather than leave it to the shared queue: it
   * has what the work needs, and a free slot or no other live host to hand it to (then its
   * environment queues it, as a single host always did).
   */
  const takesHere = (needs: readonly string[]): boolean =>
    !host ||
    (needs.every((id) => !lacking.has(id)) &&
      (peers.length === 0 || execution.unfinished() + reserved < slots));

  const checkQueueRoom = async (keyId: string | null): Promise<void> => {
    if (closing) throw cyrnelError('shutting_down', 'the host is shutting down');
    if ((await storage.countUnclaimed()) >= limits.maxLiveProcesses)
      throw cyrnelError(
        'too_many_processes',
        `too many processes wait for a host (at most ${limits.maxLiveProcesses})`,
      );
    if (
      keyId !== null &&
      (await storage.countUnclaimed(keyId)) + liveOfKey(keyId) >= limits.maxLiveProcessesPerKey
    )
      throw cyrnelError(
        'too_many_processes',
        `too many live processes for this key (at most ${limits.maxLiveProcessesPerKey} queued, running or terminating per key)`,
      );
  };

  /** Tell the other hosts (a hint: a lost signal is found by their polls, so it is only logged). */
  const publish = (topic: 'queue' | 'process', payload: string): void => {
    signals
      ?.publish(topic, payload)
      .catch((error: unknown) => logger.debug('process: a signal failed', { error: String(error) }));
  };
  const announce = (message: { readonly id: number } | { readonly kill: number }): void =>
    publish('process', JSON.stringify(message));

  /** Work may wait in the shared queue: set by signals, polls and this host's own queued work. */
  let queueSeen = false;
  let pumping = false;
  let pumpAgain = false;
  /** Work may wait in the shared queue: take what this host can. */
  const seeQueue = (): void => {
    queueSeen = true;
    pump();
  };
  const announceQueued = (): void => {
    publish('queue', '');
    seeQueue();
  };

  const launchClaimed = ({ record, code }: ClaimedProcess): void => {
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
    launch(new LiveProcess(record, code, limits), lease);
  };

  /** Take queued work while this host has free slots; one pass at a time. */
  const pump = (): void => {
    if (!host || !started || closing) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    void (async () => {
      do {
        pumpAgain = false;
        const free = Math.min(16, slots - (execution.unfinished() + reserved));
        if (free <= 0 || !environments.active()) return;
        claiming++;
        let claimed: ClaimedProcess[];
        try {
          claimed = await storage.claim(host.id, now().toISOString(), { limit: free, lacking: [...lacking] });
        } finally {
          claiming--;
        }
        for (const item of claimed) launchClaimed(item);
        if (claimed.length === free) pumpAgain = true;
        else queueSeen = false;
      } while (pumpAgain && !closing);
    })()
      .catch((error: unknown) => logger.error('process: taking queued work failed', { error: String(error) }))
      .finally(() => {
        pumping = false;
      });
  };

  /** Write this host's heartbeat and modules, and read the others'. */
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

  let taking = false;
  const takeKills = (hostId: string): void => {
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
  };

  let beating = false;
  /** When this host last wrote its heartbeat (ms since the epoch, by `now`). */
  let lastBeat: number | undefined;

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

  const startHost = (hostId: string) => {
    started = true;
    const every = (ms: number, task: () => void) => {
      const timer = setInterval(task, ms);
      timer.unref();
      timers.push(timer);
    };
    every(heartbeatMs, () => {
      if (beating || closing) return;
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
          { staleBefore: staleBefore(at) },
        );
        if (count > 0)
          logger.warn('process: recorded the processes of a silent host as failed', { count, leaseMs });
      })()
        .catch((error: unknown) => logger.error('process: heartbeat failed', { error: String(error) }))
        .finally(() => {
          beating = false;
        });
    });
    // Kills asked on other hosts for runs of this one, and the shared queue, as backstops of signals.
    // Only other hosts ask for kills: alone (a SQLite file, or the last host), nothing to look for.
    every(remotePollMs, () => {
      if (peers.length > 0) takeKills(hostId);
    });
    every(Math.max(10, host?.queuePollMs ?? 2_000), seeQueue);
    if (signals) {
      unsubscribe.push(
        signals.subscribe('queue', seeQueue),
        signals.subscribe('process', (payload) => {
          if (payload === null) {
            wake(null);
            takeKills(hostId);
            return;
          }
          const value = parseJson(payload);
          const stream = parseStreamMessage(value);
          if (stream) {
            streams?.handle(stream, (id) => live.get(id));
            return;
          }
          const message = parseSignal(value);
          if (message?.kill !== undefined) takeKills(hostId);
          if (message?.id !== undefined) wake(message.id);
        }),
      );
    }
    pump();
  };

  return {
    api,
    bindings,
    async recover() {
      // Every non-idle row is a leftover only while this manager has started nothing.
      if (live.size > 0)
        throw cyrnelError('process_not_idle', 'recover() must run before any process starts');
      const at = now();
      if (host) {
        await beat(host.id, at);
        lastBeat = at.getTime();
      }
      const count = await storage.failInterrupted(
        INTERRUPTED_ERROR,
        at.toISOString(),
        'process_interrupted',
        host ? { hostId: host.id, staleBefore: staleBefore(at), unowned: true } : undefined,
      );
      if (count > 0) logger.warn('process: recorded interrupted processes as failed', { count });
      if (host) startHost(host.id);
    },
    async close({ graceMs = 10_000 } = {}) {
      closing = true;
      for (const timer of timers) clearInterval(timer);
      for (const stop of unsubscribe) stop();
      wake(null);
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
      if (host) await storage.removeHost(host.id).catch(() => undefined);
    },
    peers: () => peers,
    async modulesChanged() {
      if (!host || closing) return;
      await beat(host.id, now());
      pump();
    },
  };
}

function parseJson(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

/** A `process` signal: a run that changed (`id`) or a kill asked of its host (`kill`). */
function parseSignal(value: unknown): { id?: number; kill?: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, kill } = value as { id?: unknown; kill?: unknown };
  return {
    ...(Number.isSafeInteger(id) ? { id: id as number } : {}),
    ...(Number.isSafeInteger(kill) ? { kill: kill as number } : {}),
  };
}
