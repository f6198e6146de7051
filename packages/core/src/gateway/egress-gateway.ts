import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EgressChannel, ModuleLogger } from '@cyrnel/sdk';
import { MAX_JSON_DEPTH } from '@cyrnel/sdk';
import type { DirectCallsHost } from '../direct-calls/direct-calls-host';
import { cyrnelError } from '../errors';
import { silentLogger } from '../scoped-logger';
import type { TracingOptions } from '../telemetry/tracing';
import type { AnswerBudget } from './bounded-json';
import type { AuditEvent, AuditVerdict, TracedVerdict } from './gateway-protocol';
import { createGatewayWorker, type EgressAnswer, type GatewayWorker } from './gateway-worker';
import { createHostJournal, type HostJournal } from './host-journal';
import { toWireError } from './wire-error';

/** Options of {@link createEgressGateway}. */
export interface EgressGatewayOptions {
  /** Prepares calls (config, secrets, snapshot, schema) and announces catalog changes. */
  readonly host: Pick<DirectCallsHost, 'prepare' | 'onChange'>;
  /** Worker threads (default 2). */
  readonly workers?: number;
  /** The answer budget (default: 64 MiB, `MAX_JSON_DEPTH` levels, 1,000,000 elements). */
  readonly budget?: Partial<AnswerBudget>;
  /** Old-generation heap of each worker in MB (default 1024); past it the worker dies alone and is replaced. */
  readonly workerMemoryMb?: number;
  /** The built worker entry (default: `dist/egress-worker.js` of this package). */
  readonly workerUrl?: URL;
  /**
   * A worker without an execution granted or a call open this long exits; the next grant or call
   * starts it again (default 5 minutes, as the sandbox pool's children; 0: never).
   */
  readonly idleTimeoutMs?: number;
  readonly logger?: ModuleLogger;
  /**
   * Tracing (the host's): the workers record their adapters' spans and send them to the port
   * `exportPort` gives each when it starts (else, or once it closed, to `exportRelayed`); with
   * `argumentShapes` each audited start carries its parameters' shape.
   */
  readonly tracing?: TracingOptions;
  /**
   * A private directory for the workers' call journals, on storage only this host uses: a call
   * allowed by a decision the audit hook said to keep (`TracedVerdict.keep`) is journaled there and
   * made without waiting for the main thread. The host folds what a crash left in it
   * (`foldCallJournals`) when it starts. Absent: every call waits for its start to be stored.
   */
  readonly journalDir?: string;
}

/**
 * The audit hook: a call's start or end for execution `eid`; answers false when that execution
 * is not running (a start is then refused: the request never leaves), and `'host'` for a start the
 * policies do not simply allow (the call is then answered "through the host", whose gate asks a
 * person or blocks it). A start resolves once it is stored, before the request leaves.
 */
export type EgressAudit = (
  eid: number,
  event: AuditEvent,
) => AuditVerdict | TracedVerdict | Promise<AuditVerdict | TracedVerdict>;

/**
 * The connection hook: the id of the adapter state a call of execution `eid` to `serviceId` uses
 * (its principal's connection, or the one the code named, checked); rejects with a coded error
 * (`connection_not_found`, `connection_forbidden`, `process_not_running`).
 */
export type EgressRoute = (eid: number, serviceId: string, connection: unknown) => Promise<string>;

/**
 * The reauthorization hook: a call with adapter state `instanceId`, made at `since` (epoch ms),
 * was refused by the upstream (HTTP 401). True when its OAuth tokens were refreshed and the state
 * hydrated again (the worker makes the call once more); false when it does not sign in with OAuth;
 * rejects with a coded error (a refused refresh: `upstream_unauthorized`).
 */
export type EgressReauthorize = (instanceId: string, since: number) => Promise<boolean>;

/** The egress gateway (see {@link createEgressGateway}). */
export interface EgressGateway {
  /** A channel for one sandbox process (its grants are the caller's to check). */
  open(): EgressChannel;
  /** Set the audit hook (the process bindings do, once). */
  audit(hook: EgressAudit): void;
  /** Set the connection hook (the process bindings do, once); without one every call uses its service's own. */
  route(hook: EgressRoute): void;
  /** Set the reauthorization hook (the host does, once); without one a refused call is answered as it is. */
  reauthorize(hook: EgressReauthorize): void;
  /**
   * A portable adapter's call for the host's gate, made in a worker: its answer as JSON text (with
   * the upstream's HTTP status when it had one), or undefined when the worker does not make it (not
   * prepared: the gate's own adapter does).
   */
  invoke(
    serviceId: string,
    toolId: string,
    parameters: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<EgressAnswer | undefined>;
  /**
   * Resolves once every call end the workers sent before now was handed to the audit hook: call
   * ends are not acknowledged, so the host passes this before it settles a run whose calls it has
   * not all seen end.
   */
  endsRead(): Promise<void>;
  /** What the workers are doing now, for metrics. */
  stats(): EgressStats;
  /** Stop the workers and remove the socket directory. */
  close(): Promise<void>;
  /** Whether the workers journal calls (a kept decision lets calls go without the main thread). */
  readonly journals: boolean;
  /**
   * Journal the start of a call the host's own thread is about to make (the gate's path: a tool
   * that is not portable), beside the workers' journals, so that it need not wait for its start's
   * write; answers the function to hand that write's promise to. Undefined without a journal, or
   * when the line could not be written: the call then waits for its start's write.
   *
   * @example
   * ```ts
   * const journaled = egress.journalHostCall(eid, 'memory', 'read_graph', startedMs);
   * const call = records.open(run, 'memory', 'read_graph', startedMs, decision, undefined, journaled !== undefined);
   * if (journaled) journaled(call.started);
   * else await call.started;
   * ```
   */
  readonly journalHostCall: HostJournal['journal'];
}

/** What {@link EgressGateway.stats} answers. */
export interface EgressStats {
  /** Worker threads. */
  readonly workers: number;
  /** Calls the workers are making now (of sandbox processes and of the host's gate). */
  readonly inFlight: number;
  /** Workers that died and were replaced since the gateway started. */
  readonly restarts: number;
}

/** The built worker: beside this bundle in `dist/`, or in `../dist/` when running from `src/`. */
export const EGRESS_WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? '../../dist/egress-worker.js' : './egress-worker.js',
  import.meta.url,
);

/**
 * The default answer budget: the host's body limit in bytes, its JSON depth, and a million
 * elements (parsing them in an isolate takes tens of megabytes of its heap; a 64 MiB array of
 * zeros would be 32 million).
 */
export const DEFAULT_ANSWER_BUDGET: AnswerBudget = {
  maxBytes: 64 * 1024 * 1024,
  maxDepth: MAX_JSON_DEPTH,
  maxElements: 1_000_000,
};

/** How long a gateway worker stays without work by default: as long as the sandbox pool's children. */
export const EGRESS_IDLE_TIMEOUT_MS = 300_000;

/**
 * Create the egress gateway: worker threads that hold the portable adapters' instances (and so
 * their secrets), make their calls and answer them as bounded JSON text, off the main thread.
 * The workers start with the first grant or call (a host that runs no process holds none) and
 * exit after `idleTimeoutMs` without work.
 * Sandbox processes reach the workers over Unix sockets in a private directory (mode 0700),
 * authenticated by a channel token and allowed only the executions granted to it (a worker asks the
 * main thread on an execution's first call and keeps the answer until the revoke); the workers
 * report every such call's start and end to the audit hook and wait for it before going on.
 *
 * @example
 * ```ts
 * const egress = createEgressGateway({ host: directCallsHost, workers: 2 });
 * egress.audit((eid, event) => record(eid, event));
 * const channel = egress.open(); // hand endpoints + token to one sandbox process
 * await channel.grant(eid);
 * ```
 */
export function createEgressGateway(options: EgressGatewayOptions): EgressGateway {
  const logger = options.logger ?? silentLogger;
  const count = Math.max(1, Math.floor(options.workers ?? 2));
  const budget: AnswerBudget = { ...DEFAULT_ANSWER_BUDGET, ...options.budget };
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-egress-'));
  chmodSync(dir, 0o700);
  const grants = new Map<string, Set<number>>();
  let hook: EgressAudit = () => false;
  let routeHook: EgressRoute = async (_eid, serviceId) => serviceId;
  let reauthorizeHook: EgressReauthorize = async () => false;
  let closed = false;
  const relay = options.tracing?.exportRelayed;
  const exportPort = options.tracing?.exportPort;
  const tracing = relay ? { argumentShapes: options.tracing?.argumentShapes === true } : undefined;

  const { journalDir } = options;
  let journals = 0;
  const hostJournal = journalDir ? createHostJournal(journalDir, `h-${++journals}.jsonl`) : undefined;
  const workers: GatewayWorker[] = [];
  for (let index = 0; index < count; index++) {
    workers.push(
      createGatewayWorker({
        ...(journalDir ? { journal: () => join(journalDir, `w${index}-${++journals}.jsonl`) } : {}),
        spawn: (journal) => {
          // Its spans go straight to the exporter thread when the embedder has one.
          const spanPort = tracing ? exportPort?.() : undefined;
          return new Worker(options.workerUrl ?? EGRESS_WORKER_URL, {
            workerData: {
              socketPath: join(dir, `w${index}.sock`),
              index,
              workers: count,
              budget,
              ...(tracing ? { tracing: spanPort ? { ...tracing, spanPort } : tracing } : {}),
              ...(journal ? { journal } : {}),
            },
            ...(spanPort ? { transferList: [spanPort] } : {}),
            resourceLimits: { maxOldGenerationSizeMb: options.workerMemoryMb ?? 1024 },
          });
        },
        grants: () => grants,
        prepare: (serviceId, toolId) => options.host.prepare(serviceId, toolId),
        audit: (eid, event) => hook(eid, event),
        ...(relay ? { relay } : {}),
        ...(tracing && exportPort ? { exportPort } : {}),
        route: (eid, serviceId, connection) =>
          routeHook(eid, serviceId, connection).then(
            (instanceId) => ({ instanceId }),
            (error: unknown) => ({ error: toWireError(error) }),
          ),
        reauthorize: (instanceId, since) =>
          reauthorizeHook(instanceId, since).then(
            (retry) => ({ retry }),
            (error: unknown) => ({ error: toWireError(error) }),
          ),
        closed: () => closed,
        onRestart: (why) => logger.warn('egress gateway: a worker died; replacing it', { index, why }),
        idleTimeoutMs: options.idleTimeoutMs ?? EGRESS_IDLE_TIMEOUT_MS,
      }),
    );
  }
  const stopChanges = options.host.onChange((change) =>
    Promise.all(workers.map((worker) => worker.changed(change))).then(() => undefined),
  );
  let next = 0;

  return {
    journals: journalDir !== undefined,
    journalHostCall: (eid, serviceId, toolId, startedMs) =>
      hostJournal?.journal(eid, serviceId, toolId, startedMs),
    open() {
      const token = randomBytes(32).toString('base64url');
      grants.set(token, new Set());
      return {
        endpoints: workers.map((_, index) => join(dir, `w${index}.sock`)),
        token,
        async grant(eid) {
          const set = grants.get(token);
          if (!set) throw cyrnelError('unauthorized', 'the egress channel is closed');
          set.add(eid);
          await Promise.all(workers.map((worker) => worker.grant(token, eid)));
        },
        revoke(eid) {
          grants.get(token)?.delete(eid);
          for (const worker of workers) worker.revoke(token, eid);
        },
        close() {
          if (!grants.delete(token)) return;
          for (const worker of workers) worker.revoke(token, null);
        },
      };
    },
    audit(next) {
      hook = next;
    },
    route(next) {
      routeHook = next;
    },
    reauthorize(next) {
      reauthorizeHook = next;
    },
    invoke(serviceId, toolId, parameters, signal) {
      const worker = workers[next++ % workers.length] as GatewayWorker;
      return worker.invoke(serviceId, toolId, parameters, signal);
    },
    async endsRead() {
      await Promise.all(workers.map((worker) => worker.sync()));
    },
    stats: () => ({
      workers: workers.length,
      inFlight: workers.reduce((sum, worker) => sum + worker.inFlight(), 0),
      restarts: workers.reduce((sum, worker) => sum + worker.restarts(), 0),
    }),
    async close() {
      if (closed) return;
      closed = true;
      stopChanges();
      hostJournal?.close();
      await Promise.all(workers.map((worker) => worker.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
