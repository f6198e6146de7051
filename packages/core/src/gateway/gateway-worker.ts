import type { MessagePort, Worker } from 'node:worker_threads';
import type { CatalogChange } from '@cyrnel/sdk';
import { CyrnelError } from '@cyrnel/sdk';
import type { ErrorReason } from '@cyrnel/sdk/api';
import { context } from '@opentelemetry/api';
import { errorMessage } from '../scoped-logger';
import type { RelayedSpan } from '../telemetry/relayed-span';
import { carrierOf } from '../telemetry/trace-carrier';
import type {
  AuditEvent,
  AuditVerdict,
  FromWorker,
  GrantAnswer,
  ReauthorizeAnswer,
  RouteAnswer,
  ToWorker,
  TracedVerdict,
} from './gateway-protocol';
import { createThreadAudits, type ThreadAudits, workerStopped } from './thread-audits';

/** How long a worker may take to drop what changed before it is replaced (it then holds nothing). */
const CHANGE_GRACE_MS = 5_000;
/** Least time between two ports offered to a worker whose spans come through the main thread. */
const SPAN_PORT_OFFER_MS = 1_000;

/** Options of {@link createGatewayWorker}. */
export interface GatewayWorkerOptions {
  /** Start the thread (it learns grants by asking, see `granted?`), with its journal file. */
  readonly spawn: (journal: string | undefined) => Worker;
  /**
   * A new journal file for each thread started (see `WorkerSettings.journal`); absent: no journal,
   * every start waits for the main thread.
   */
  readonly journal?: () => string;
  /** The executions granted to each open channel's token (answers the worker's `granted?`). */
  readonly grants: () => ReadonlyMap<string, ReadonlySet<number>>;
  readonly prepare: (serviceId: string, toolId: string) => Promise<unknown>;
  readonly audit: (
    eid: number,
    event: AuditEvent,
  ) => AuditVerdict | TracedVerdict | Promise<AuditVerdict | TracedVerdict>;
  /** Spans the worker's adapters finished (tracing); absent: tracing is off. */
  readonly relay?: (spans: readonly RelayedSpan[]) => void;
  /**
   * A new port to the exporter thread, offered to a worker whose spans come through the main
   * thread (its port closed when that thread was replaced); undefined: no thread runs.
   */
  readonly exportPort?: () => MessagePort | undefined;
  /** Which connection's adapter state a call of `eid` uses (see `RouteAnswer`). */
  readonly route: (eid: number, serviceId: string, connection: unknown) => Promise<RouteAnswer>;
  /** A call with adapter state `instanceId` made at `since` was refused (HTTP 401): refresh its tokens? */
  readonly reauthorize: (instanceId: string, since: number) => Promise<ReauthorizeAnswer>;
  readonly closed: () => boolean;
  readonly onRestart: (why: string) => void;
  /**
   * A thread with no execution granted and no call open this long exits; the next grant or call
   * starts it again (0 or absent: it stays).
   */
  readonly idleTimeoutMs?: number;
}

/** The main thread's side of one gateway worker, replaced whenever it dies. */
export interface GatewayWorker {
  /** `eid` may call through `token`'s channel: starts the thread (its socket must listen). */
  grant(token: string, eid: number): Promise<void>;
  /** Told to the thread only when it was told the grant (or, for a channel, when it runs). */
  revoke(token: string, eid: number | null): void;
  changed(change: CatalogChange): Promise<void>;
  invoke(
    serviceId: string,
    toolId: string,
    parameters: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<EgressAnswer | undefined>;
  /** Calls it is making now: audited calls of sandbox processes and calls of the host's gate. */
  inFlight(): number;
  /**
   * Resolves once every call end the thread sent before now was read (at once when no thread
   * runs; a thread that dies meanwhile has its open calls ended as crashed, so it resolves too).
   */
  sync(): Promise<void>;
  /** Times its thread died and was started again. */
  restarts(): number;
  close(): Promise<void>;
}

/** A call's answer from a worker: JSON text, and the upstream's HTTP status when it had one. */
export interface EgressAnswer {
  readonly json: string;
  readonly status: number | null;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Supervise one worker thread: answer its questions, forward changes and grants, restart it. The
 * thread starts on first use (a grant or a call), so a host that runs no process holds none, and
 * exits after `idleTimeoutMs` without grants or calls.
 */
export function createGatewayWorker(options: GatewayWorkerOptions): GatewayWorker {
  let worker: Worker | undefined;
  let ready: Promise<void> | undefined;
  let nextId = 1;
  /** Answers the worker owes (acks, host-path calls), failed when it dies. */
  let waiting = new Map<number, Waiter>();
  /** The running thread's audit: its open calls (ended as crashed when it dies) and its journal. */
  let audits: ThreadAudits | undefined;
  /** Calls of the host's gate it is making. */
  let hostCalls = 0;
  let restarts = 0;
  /**
   * The grants this thread was told (it asked, `granted?`): only these are revoked in it, so a
   * process that makes no direct call costs no message to the thread.
   */
  let told = new Map<string, Set<number>>();

  const postTo = (target: Worker | undefined, message: ToWorker, transfer?: MessagePort[]) => {
    try {
      target?.postMessage(message, transfer);
    } catch {
      // A worker that is exiting: its waiters fail with its exit.
    }
  };
  const post = (message: ToWorker, transfer?: MessagePort[]) => postTo(worker, message, transfer);
  /** When a port was last offered: at most one a second while spans keep coming this way. */
  let portOffered = Number.NEGATIVE_INFINITY;
  const offerSpanPort = () => {
    const now = performance.now();
    if (!options.exportPort || now - portOffered < SPAN_PORT_OFFER_MS) return;
    portOffered = now;
    const port = options.exportPort();
    if (port) post({ t: 'span-port', port }, [port]);
  };
  const expect = (message: (id: number) => ToWorker) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      post(message(id));
    });

  const onMessage = (message: FromWorker) => {
    switch (message.t) {
      case 'granted?': {
        const { token, eid } = message;
        const eids = options.grants().get(token);
        const answer: GrantAnswer = eids === undefined ? 'closed' : eids.has(eid) ? 'yes' : 'no';
        if (answer === 'yes') {
          let set = told.get(token);
          if (!set) {
            set = new Set();
            told.set(token, set);
          }
          set.add(eid);
        }
        post({ t: 'grant', id: message.id, answer });
        return;
      }
      case 'prepare':
        options.prepare(message.serviceId, message.toolId).then(
          (value) => post({ t: 'prepared', id: message.id, value }),
          () => post({ t: 'prepared', id: message.id, value: undefined }),
        );
        return;
      case 'route':
        options
          .route(message.eid, message.serviceId, message.connection)
          .then((route) => post({ t: 'routed', id: message.id, route }));
        return;
      case 'reauthorize':
        options
          .reauthorize(message.instanceId, message.since)
          .then((answer) => post({ t: 'reauthorized', id: message.id, answer }));
        return;
      case 'audit':
        audits?.start(message);
        return;
      case 'audits':
        audits?.batch(message);
        return;
      case 'ack':
      case 'answer': {
        const waiter = waiting.get(message.id);
        waiting.delete(message.id);
        if (!waiter) return;
        if (message.t === 'ack') waiter.resolve(undefined);
        else if (message.error)
          waiter.reject(new CyrnelError(message.error.reason as ErrorReason, message.error.message));
        else
          waiter.resolve(
            message.host || message.json === undefined
              ? undefined
              : ({ json: message.json, status: message.status ?? null } satisfies EgressAnswer),
          );
        return;
      }
      case 'spans':
        try {
          options.relay?.(message.spans);
        } catch {
          // An exporter's failure never reaches the calls.
        }
        offerSpanPort();
        return;
      default:
        return;
    }
  };

  let idleTimer: NodeJS.Timeout | undefined;
  /** When it last had work (grant, revoke, call): the idle time counts from there. */
  let lastActive = 0;
  /** An execution may call through it, or it owes an answer. */
  const busy = () => {
    if (waiting.size > 0 || (audits?.open() ?? 0) > 0) return true;
    for (const eids of options.grants().values()) if (eids.size > 0) return true;
    return false;
  };
  /**
   * Note activity; a thread idle for `idleTimeoutMs` exits. One timer is armed and re-armed for
   * what is left when it fires, rather than a timer per grant and revoke.
   */
  const stopWhenIdle = () => {
    lastActive = performance.now();
    const idleMs = options.idleTimeoutMs ?? 0;
    if (!worker || idleMs <= 0 || idleTimer) return;
    const check = () => {
      idleTimer = undefined;
      const own = worker;
      if (!own) return;
      const left = lastActive + idleMs - performance.now();
      if (busy() || left > 0) {
        idleTimer = setTimeout(check, busy() ? idleMs : left);
        idleTimer.unref();
        return;
      }
      // No longer this supervisor's thread: its exit is not a crash, and nothing is restarted.
      const ownAudits = audits;
      worker = undefined;
      ready = undefined;
      told = new Map();
      audits = undefined;
      void own.terminate().then(() => ownAudits?.stopped());
    };
    idleTimer = setTimeout(check, idleMs);
    idleTimer.unref();
  };

  const start = () => {
    const journal = options.journal?.();
    const own = options.spawn(journal);
    worker = own;
    told = new Map();
    // Its audit answers this thread only, never a replacement.
    const ownAudits = createThreadAudits(options.audit, journal, (message) => postTo(own, message));
    audits = ownAudits;
    ready = new Promise<void>((resolve) => {
      own.on('message', (message: FromWorker) => {
        if (message.t === 'listening') resolve();
        else onMessage(message);
      });
      own.once('exit', () => resolve());
    });
    own.on('error', (error) => options.onRestart(errorMessage(error)));
    own.once('exit', (code) => {
      // A thread stopped for idling owes nothing (it was idle); a newer one may.
      if (own !== worker) return;
      const lost = waiting;
      waiting = new Map();
      const crashed = workerStopped();
      for (const waiter of lost.values()) waiter.reject(crashed);
      ownAudits.stopped();
      audits = undefined;
      if (options.closed()) return;
      options.onRestart(`exit code ${code}`);
      restarts++;
      start();
    });
  };
  /** The thread, started now if it was not (its grants are those made so far). */
  const started = (): Promise<void> => {
    if (!ready) {
      if (options.closed())
        return Promise.reject(new CyrnelError('shutting_down', 'the egress gateway is closed'));
      start();
    }
    return ready as Promise<void>;
  };

  return {
    async grant(_token, _eid) {
      // Nothing is posted: the thread asks on the execution's first call (see `granted?`).
      await started();
      stopWhenIdle();
    },
    revoke(token, eid) {
      if (eid === null) {
        // A channel closed (a sandbox process stopped): its connections close in a running thread.
        told.delete(token);
        if (worker) post({ t: 'revoke', token, eid });
      } else if (told.get(token)?.delete(eid)) post({ t: 'revoke', token, eid });
      stopWhenIdle();
    },
    async changed(change) {
      // Not started: it holds nothing that could have changed.
      if (!ready) return;
      await ready;
      const own = worker as Worker;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          // It may still hold what changed: it does not outlive the change.
          void own.terminate().then(() => resolve());
        }, CHANGE_GRACE_MS);
      });
      await Promise.race([expect((id) => ({ t: 'changed', id, change })).catch(() => undefined), late]);
      clearTimeout(timer);
    },
    async invoke(serviceId, toolId, parameters, signal) {
      lastActive = performance.now();
      await started();
      signal?.throwIfAborted();
      const id = nextId++;
      const answer = new Promise<unknown>((resolve, reject) => waiting.set(id, { resolve, reject }));
      const abort = () => post({ t: 'abort', id });
      signal?.addEventListener('abort', abort, { once: true });
      // The call's span (the gate's path runs the call in it) is continued in the worker.
      const trace = options.relay ? carrierOf(context.active()) : undefined;
      post({ t: 'invoke', id, serviceId, toolId, parameters, ...(trace ? { trace } : {}) });
      hostCalls++;
      try {
        return (await (signal
          ? Promise.race([
              answer,
              new Promise<never>((_, reject) =>
                signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
              ),
            ])
          : answer)) as EgressAnswer | undefined;
      } finally {
        hostCalls--;
        signal?.removeEventListener('abort', abort);
        stopWhenIdle();
      }
    },
    inFlight: () => (audits?.open() ?? 0) + hostCalls,
    async sync() {
      if (!worker || !ready) return;
      await ready;
      await expect((id) => ({ t: 'sync', id })).catch(() => undefined);
    },
    restarts: () => restarts,
    async close() {
      clearTimeout(idleTimer);
      if (!ready) return;
      await ready;
      const own = worker as Worker;
      await Promise.race([
        expect((id) => ({ t: 'close', id })).catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
      ]);
      await own.terminate();
      audits?.stopped();
    },
  };
}
