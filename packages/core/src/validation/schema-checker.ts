import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ErrorReason, JSONSchema } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';
import { timerDelay } from '../timer-delay';
import { type PlainCheck, plainCheckOf } from './plain-schema';
import type { CheckReply, CheckRequest, ValidationWorkerData } from './validation-worker';

/** One check: a value against a schema, named in messages by `field`. */
export interface SchemaCheck {
  /** Names the value in messages, e.g. `config` or `parameters`. */
  readonly field: string;
  /**
   * The schema, or a function that reads it (called by the first check of `key`, to see whether
   * it is plain, and again only when no worker has `key` compiled).
   */
  readonly schema: JSONSchema | (() => Promise<JSONSchema>);
  /** Cache key of the compiled schema; default: a hash of the schema's JSON. */
  readonly key?: string;
  readonly value: unknown;
  /** Leave the validator's messages out of issues: they may describe a secret value. */
  readonly redact?: boolean;
  /** Names the schema in the error when it cannot be compiled, e.g. `the inputSchema of a.b`. */
  readonly schemaName?: string;
  /**
   * The shared schemas `schema` resolves `#/$defs/<name>` against (`ServiceDefinition.schemas`), sent
   * to each worker once per `key` (e.g. the service's definition hash) rather than with every schema.
   */
  readonly shared?: SharedSchemas;
  /** The reason of the 400 when the value does not validate; default `invalid_request`. */
  readonly invalidReason?: ErrorReason;
}

/** The shared schemas of one service definition, as a {@link SchemaCheck} names them. */
export interface SharedSchemas {
  /** Identifies this set of shared schemas; a changed set needs a new key. */
  readonly key: string;
  /** The schemas by name, or a function that reads them (called only when a worker lacks `key`). */
  readonly schemas:
    | Readonly<Record<string, JSONSchema>>
    | (() => Promise<Readonly<Record<string, JSONSchema>>>);
}

/**
 * Validates values against JSON Schemas off the main thread (a hostile schema or value must not stall the host): Ajv in worker threads,
 * patterns on a linear-time engine, every check under a deadline. A check that misses it costs
 * its worker (terminated and replaced), never the host's event loop. A plain schema's small valid
 * value is answered on the host's thread by a bounded walk instead (`plainCheckOf`).
 */
export interface SchemaChecker {
  /** Resolve when valid; reject with 400 `invalid_request` listing the problems, or 502 `upstream_failed` for a broken schema. */
  check(check: SchemaCheck): Promise<void>;
  /**
   * Stop the workers that have no work now, without waiting for their idle timeout; the next
   * check starts one again. The host calls it once it has started: the checks of its start (the
   * modules' config) leave no worker behind on a host that then waits for work.
   *
   * @example
   * ```ts
   * await checker.check({ field: 'config', schema: { type: 'object' }, value: {} });
   * checker.releaseIdle(); // the worker that checked it exits
   * ```
   */
  releaseIdle(): void;
  /** What the workers are doing now, for metrics. */
  stats(): SchemaCheckerStats;
  /** Terminate the workers; later checks reject. */
  close(): Promise<void>;
}

/** What {@link SchemaChecker.stats} answers. */
export interface SchemaCheckerStats {
  /** Worker slots (threads started on demand, up to this many). */
  readonly workers: number;
  /** Slots checking a value now. */
  readonly busy: number;
  /** Checks waiting for a free slot. */
  readonly queued: number;
  /** Checks that missed their deadline since the checker started (each cost its worker). */
  readonly timeouts: number;
}

/** Options of {@link createSchemaChecker}. */
export interface SchemaCheckerOptions {
  /** Worker threads; default `min(2, availableParallelism())`. */
  readonly workers?: number;
  /** Deadline of one check once its schema is compiled; default 1000 ms. */
  readonly timeoutMs?: number;
  /** Deadline of one check that compiles its schema first; default 15000 ms. */
  readonly compileTimeoutMs?: number;
  /** A worker without work this long exits (started again on demand); default 60000 ms. */
  readonly idleTimeoutMs?: number;
}

interface Pending {
  readonly check: SchemaCheck;
  readonly key: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker | undefined;
  /** Keys this worker was sent a schema for (it may have dropped some: it then says so). */
  readonly known: Set<string>;
  /** Keys of the shared schemas this worker was sent. */
  readonly knownShared: Set<string>;
  /** Taken from when a check is picked (its schema may still be read) until its reply. */
  reserved: boolean;
  running:
    | { readonly pending: Pending; readonly request: CheckRequest; readonly timer: NodeJS.Timeout }
    | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './validation-worker.ts' : './validation-worker.js',
  import.meta.url,
);

/** Schema keys whose plain check (or its absence) is remembered; the oldest is dropped first. */
const MAX_PLAIN = 2000;

function schemaKey(schema: JSONSchema): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(schema)).digest('base64url')}`;
}

/**
 * Create the checker. Workers start on the first check.
 *
 * @example
 * ```ts
 * const checker = createSchemaChecker();
 * await checker.check({ field: 'config', schema: { type: 'object' }, value: {} });
 * await checker.close();
 * ```
 */
export function createSchemaChecker(options: SchemaCheckerOptions = {}): SchemaChecker {
  const size = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
  const timeoutMs = options.timeoutMs ?? 1000;
  const compileTimeoutMs = options.compileTimeoutMs ?? 15_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const slots: Slot[] = Array.from({ length: size }, () => ({
    worker: undefined,
    known: new Set<string>(),
    knownShared: new Set<string>(),
    reserved: false,
    running: undefined,
    idleTimer: undefined,
  }));
  const queue: Pending[] = [];
  /** Per schema key: the host thread's own check of a plain schema, or null (the workers'). */
  const plain = new Map<string, PlainCheck | null>();
  let nextId = 1;
  let closed = false;
  let timeouts = 0;

  function stop(slot: Slot): void {
    const worker = slot.worker;
    slot.worker = undefined;
    slot.known.clear();
    slot.knownShared.clear();
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    if (worker) void worker.terminate();
  }

  function start(slot: Slot): Worker {
    const workerData: ValidationWorkerData = { cyrnelValidation: true };
    const worker = new Worker(WORKER_URL, { workerData });
    worker.unref();
    worker.on('message', (reply: CheckReply) => onReply(slot, reply));
    worker.on('error', (error) => onFailure(slot, worker, error));
    worker.on('exit', () => onFailure(slot, worker, new Error('the validation worker exited')));
    slot.worker = worker;
    return worker;
  }

  function onFailure(slot: Slot, worker: Worker, error: unknown): void {
    if (slot.worker !== worker) return;
    const pending = finish(slot);
    stop(slot);
    if (pending) {
      pending.reject(
        cyrnelError(
          'upstream_failed',
          `${pending.check.field} could not be validated: the validator failed`,
          {
            cause: error,
          },
        ),
      );
    }
    pump();
  }

  function finish(slot: Slot): Pending | undefined {
    const running = slot.running;
    slot.running = undefined;
    slot.reserved = false;
    if (!running) return undefined;
    clearTimeout(running.timer);
    return running.pending;
  }

  function onReply(slot: Slot, reply: CheckReply): void {
    if (slot.running?.request.id !== reply.id) return;
    const pending = finish(slot);
    if (!pending) return;
    const { check } = pending;
    switch (reply.kind) {
      case 'valid':
        pending.resolve();
        break;
      case 'invalid': {
        const first = reply.issues[0];
        const summary = first ? `: ${first.path} ${first.message}` : '';
        pending.reject(
          cyrnelError(
            check.invalidReason ?? 'invalid_request',
            `${check.field} does not match its schema${summary}`,
            { details: reply.issues },
          ),
        );
        break;
      }
      case 'unknown-schema':
        // The worker dropped its cache: send the schema again, ahead of the queue.
        slot.known.clear();
        slot.knownShared.clear();
        queue.unshift(pending);
        break;
      case 'bad-schema':
        pending.reject(
          cyrnelError(
            'upstream_failed',
            `${check.schemaName ?? `the schema of ${check.field}`} is not a usable JSON Schema`,
            {
              cause: new Error(reply.message),
            },
          ),
        );
        break;
      case 'failed':
        pending.reject(
          cyrnelError('upstream_failed', `the schema of ${check.field} cannot be evaluated`, {
            cause: new Error(reply.message),
          }),
        );
        break;
    }
    pump();
  }

  async function dispatch(slot: Slot, pending: Pending): Promise<void> {
    const { check, key } = pending;
    const compiled = slot.known.has(key);
    let schema: JSONSchema | undefined;
    if (!compiled) schema = typeof check.schema === 'function' ? await check.schema() : check.schema;
    const shared = check.shared;
    let sharedSchemas: Readonly<Record<string, JSONSchema>> | undefined;
    // Only a compilation reads the shared schemas; each worker is sent them once per key.
    if (shared && !compiled && !slot.knownShared.has(shared.key)) {
      sharedSchemas = typeof shared.schemas === 'function' ? await shared.schemas() : shared.schemas;
    }
    if (closed) throw new Error('the schema checker is closed');
    const request: CheckRequest = {
      id: nextId++,
      key,
      value: check.value,
      redact: check.redact ?? false,
      ...(schema === undefined ? {} : { schema }),
      ...(shared ? { sharedKey: shared.key } : {}),
      ...(sharedSchemas === undefined ? {} : { shared: sharedSchemas }),
    };
    const worker = slot.worker ?? start(slot);
    const ms = compiled ? timeoutMs : compileTimeoutMs;
    const timer = setTimeout(() => {
      if (slot.running?.request !== request) return;
      timeouts++;
      finish(slot);
      stop(slot);
      pending.reject(
        cyrnelError(
          check.invalidReason ?? 'invalid_request',
          `${check.field} could not be validated within ${ms} ms: the value is too costly to check against its schema`,
          { details: [{ path: '/', message: `validation took longer than ${ms} ms` }] },
        ),
      );
      pump();
    }, timerDelay(ms));
    slot.running = { pending, request, timer };
    try {
      worker.postMessage(request);
    } catch (error) {
      // Not cloneable: nested too deeply for the structured clone, or not plain data.
      finish(slot);
      pending.reject(
        cyrnelError(
          check.invalidReason ?? 'invalid_request',
          `${check.field} cannot be validated: it is nested too deeply or not plain JSON`,
          { details: [{ path: '/', message: error instanceof Error ? error.message : String(error) }] },
        ),
      );
      pump();
      return;
    }
    if (!compiled) slot.known.add(key);
    if (sharedSchemas !== undefined && shared) slot.knownShared.add(shared.key);
  }

  function pump(): void {
    for (const slot of slots) {
      if (closed || queue.length === 0) return;
      if (slot.reserved) continue;
      const pending = queue.shift() as Pending;
      clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      slot.reserved = true;
      void dispatch(slot, pending).catch((error) => {
        finish(slot);
        pending.reject(error);
        pump();
      });
    }
    for (const slot of slots) {
      if (slot.reserved || !slot.worker || slot.idleTimer || idleTimeoutMs <= 0) continue;
      slot.idleTimer = setTimeout(() => {
        slot.idleTimer = undefined;
        if (!slot.reserved) stop(slot);
      }, timerDelay(idleTimeoutMs));
      slot.idleTimer.unref();
    }
  }

  return {
    stats: () => ({
      workers: size,
      busy: slots.filter((slot) => slot.reserved).length,
      queued: queue.length,
      timeouts,
    }),
    async check(check) {
      if (closed) throw new Error('the schema checker is closed');
      const key = check.key ?? (typeof check.schema === 'function' ? undefined : schemaKey(check.schema));
      if (key === undefined) throw new TypeError('a check with a lazily read schema needs a key');
      let own = plain.get(key);
      if (own === undefined) {
        // The schema is read once per key here; the worker that compiles it is sent this copy.
        const schema = typeof check.schema === 'function' ? await check.schema() : check.schema;
        own = plainCheckOf(schema) ?? null;
        if (plain.size >= MAX_PLAIN) plain.delete(plain.keys().next().value as string);
        plain.set(key, own);
        check = { ...check, schema };
      }
      // Certainly valid by the host's own bounded walk: no worker round trip.
      if (own?.(check.value)) return;
      if (closed) throw new Error('the schema checker is closed');
      return new Promise<void>((resolve, reject) => {
        queue.push({ check, key, resolve, reject });
        pump();
      });
    },
    releaseIdle() {
      for (const slot of slots) if (!slot.reserved && slot.worker) stop(slot);
    },
    async close() {
      closed = true;
      for (const pending of queue.splice(0)) pending.reject(new Error('the schema checker is closed'));
      for (const slot of slots) {
        const pending = finish(slot);
        pending?.reject(new Error('the schema checker is closed'));
        stop(slot);
      }
    },
  };
}
