import type { Worker } from 'node:worker_threads';
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
  ReauthorizeAnswer,
  RouteAnswer,
  ToWorker,
  TracedVerdict,
} from './gateway-protocol';

/** How long a worker may take to drop what changed before it is replaced (it then holds nothing). */
const CHANGE_GRACE_MS = 5_000;

/** Options of {@link createGatewayWorker}. */
export interface GatewayWorkerOptions {
  /** Start the thread, serving the grants made so far. */
  readonly spawn: (grants: ReadonlyMap<string, ReadonlySet<number>>) => Worker;
  readonly grants: () => ReadonlyMap<string, ReadonlySet<number>>;
  readonly prepare: (serviceId: string, toolId: string) => Promise<unknown>;
  readonly audit: (
    eid: number,
    event: AuditEvent,
  ) => AuditVerdict | TracedVerdict | Promise<AuditVerdict | TracedVerdict>;
  /** Spans the worker's adapters finished (tracing); absent: tracing is off. */
  readonly relay?: (spans: readonly RelayedSpan[]) => void;
  /** Which connection's adapter state a call of `eid` uses (see `RouteAnswer`). */
  readonly route: (eid: number, serviceId: string, connection: unknown) => Promise<RouteAnswer>;
  /** A call with adapter state `instanceId` made at `since` was refused (HTTP 401): refresh its tokens? */
  readonly reauthorize: (instanceId: string, since: number) => Promise<ReauthorizeAnswer>;
  readonly closed: () => boolean;
  readonly onRestart: (why: string) => void;
}

/** The main thread's side of one gateway worker, replaced whenever it dies. */
export interface GatewayWorker {
  grant(token: string, eid: number): Promise<void>;
  revoke(token: string, eid: number | null): void;
  changed(change: CatalogChange): Promise<void>;
  invoke(
    serviceId: string,
    toolId: string,
    parameters: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<string | undefined>;
  close(): Promise<void>;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Supervise one worker thread: answer its questions, forward changes and grants, restart it. */
export function createGatewayWorker(options: GatewayWorkerOptions): GatewayWorker {
  let worker!: Worker;
  let ready!: Promise<void>;
  let nextId = 1;
  /** Answers the worker owes (acks, host-path calls), failed when it dies. */
  let waiting = new Map<number, Waiter>();
  /** Audited calls it has open: ended as crashed when it dies. */
  let open = new Map<number, number>();

  const post = (message: ToWorker) => {
    try {
      worker.postMessage(message);
    } catch {
      // A worker that is exiting: its waiters fail with its exit.
    }
  };
  const expect = (message: (id: number) => ToWorker) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      post(message(id));
    });

  const onMessage = (message: FromWorker) => {
    switch (message.t) {
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
      case 'audit': {
        const { event, eid } = message;
        if (event.kind === 'start') {
          // The start is stored before the answer lets the request leave; a refusal or a failed
          // write keeps it from leaving.
          Promise.resolve()
            .then(() => options.audit(eid, event))
            .then(
              (answer) => {
                const ok = typeof answer === 'object' ? answer.ok : answer;
                if (ok === true) open.set(event.id, eid);
                const trace = typeof answer === 'object' ? answer.trace : undefined;
                post({ t: 'audited', id: message.id, ok, ...(trace ? { trace } : {}) });
              },
              () => post({ t: 'audited', id: message.id, ok: false }),
            );
        } else {
          open.delete(event.id);
          Promise.resolve()
            .then(() => options.audit(eid, event))
            .catch(() => undefined)
            .finally(() => post({ t: 'audited', id: message.id, ok: true }));
        }
        return;
      }
      case 'ack':
      case 'answer': {
        const waiter = waiting.get(message.id);
        waiting.delete(message.id);
        if (!waiter) return;
        if (message.t === 'ack') waiter.resolve(undefined);
        else if (message.error)
          waiter.reject(new CyrnelError(message.error.reason as ErrorReason, message.error.message));
        else waiter.resolve(message.host ? undefined : message.json);
        return;
      }
      case 'spans':
        try {
          options.relay?.(message.spans);
        } catch {
          // An exporter's failure never reaches the calls.
        }
        return;
      default:
        return;
    }
  };

  const start = () => {
    worker = options.spawn(options.grants());
    const own = worker;
    ready = new Promise<void>((resolve) => {
      own.on('message', (message: FromWorker) => {
        if (message.t === 'listening') resolve();
        else onMessage(message);
      });
      own.once('exit', () => resolve());
    });
    own.on('error', (error) => options.onRestart(errorMessage(error)));
    own.once('exit', (code) => {
      const lost = waiting;
      const calls = open;
      waiting = new Map();
      open = new Map();
      const crashed = new CyrnelError('upstream_crashed', 'the egress worker making the call stopped');
      for (const waiter of lost.values()) waiter.reject(crashed);
      for (const [id, eid] of calls) {
        void Promise.resolve()
          .then(() =>
            options.audit(eid, {
              kind: 'end',
              id,
              ok: false,
              errorCode: crashed.code,
              errorReason: crashed.reason,
              durationMs: 0,
            }),
          )
          .catch(() => undefined);
      }
      if (options.closed()) return;
      options.onRestart(`exit code ${code}`);
      start();
    });
  };
  start();

  return {
    async grant(token, eid) {
      await ready;
      await expect((id) => ({ t: 'grant', id, token, eid })).catch(() => undefined);
    },
    revoke(token, eid) {
      post({ t: 'revoke', token, eid });
    },
    async changed(change) {
      await ready;
      const own = worker;
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
      await ready;
      signal?.throwIfAborted();
      const id = nextId++;
      const answer = new Promise<unknown>((resolve, reject) => waiting.set(id, { resolve, reject }));
      const abort = () => post({ t: 'abort', id });
      signal?.addEventListener('abort', abort, { once: true });
      // The call's span (the gate's path runs the call in it) is continued in the worker.
      const trace = options.relay ? carrierOf(context.active()) : undefined;
      post({ t: 'invoke', id, serviceId, toolId, parameters, ...(trace ? { trace } : {}) });
      try {
        return (await (signal
          ? Promise.race([
              answer,
              new Promise<never>((_, reject) =>
                signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
              ),
            ])
          : answer)) as string | undefined;
      } finally {
        signal?.removeEventListener('abort', abort);
      }
    },
    async close() {
      await ready;
      const own = worker;
      await Promise.race([
        expect((id) => ({ t: 'close', id })).catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
      ]);
      await own.terminate();
    },
  };
}
