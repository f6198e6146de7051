import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { RenderReply, RenderRequest } from './render-worker';

/** Options of {@link createRenderLane}. */
export interface RenderLaneOptions {
  /** Path of the built worker (`render-worker.js`, or `check-worker.js`, which answer alike). */
  readonly workerPath: string;
  /** The worker's heap and stack bounds; past them it is terminated and its rendering fails. */
  readonly resourceLimits?: ResourceLimits;
  /** Deadline of one rendering, from its first message; past it the worker is terminated. */
  readonly timeoutMs: number;
  /** A worker without work this long exits (started again on demand). */
  readonly idleTimeoutMs: number;
  /**
   * The worker posts `{ ready: true }` once it has warmed up (loaded and primed what it works
   * with): a rendering's deadline starts then, so a cold start never counts against it. The
   * warm-up itself is bounded by this many ms (past it the worker failed). Absent: no handshake.
   */
  readonly readyTimeoutMs?: number;
}

/**
 * One render worker and its FIFO queue: one rendering at a time, each under a deadline. The
 * worker starts on the first rendering; one that misses its deadline or fails is terminated and
 * the next rendering starts a fresh one.
 */
export interface RenderLane<R extends { readonly id: number } = RenderRequest> {
  /**
   * Post `requests` (one rendering: every message but the last is a part) and resolve with the
   * text the worker answers to the last. `what` names the rendering in errors, which carry how
   * it stopped as {@link LaneError.stop}.
   */
  run(what: string, requests: (id: number) => readonly R[]): Promise<string>;
  /** Terminate the worker; queued and running renderings reject, later ones too. */
  close(): void;
}

/**
 * How a rendering failed: past its `deadline`, its worker `failed` (an error, an exit, its
 * resource limits), the worker answered an `error`, or the lane was `closed`.
 */
export type LaneError = Error & { readonly stop: 'deadline' | 'failed' | 'error' | 'closed' };

const laneError = (stop: LaneError['stop'], message: string): LaneError =>
  Object.assign(new Error(message), { stop });

interface Job<R> {
  readonly id: number;
  readonly what: string;
  readonly requests: readonly R[];
  readonly resolve: (text: string) => void;
  readonly reject: (error: LaneError) => void;
  timer?: NodeJS.Timeout;
}

/** Let the event loop serve other work before each message of a rendering. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Create a lane; no worker runs until the first rendering. */
export function createRenderLane<R extends { readonly id: number } = RenderRequest>(
  options: RenderLaneOptions,
): RenderLane<R> {
  type Task = Job<R>;
  const queue: Task[] = [];
  let worker: Worker | undefined;
  let running: Task | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 1;
  let closed = false;
  /** The running worker has said it is ready (always, without a handshake). */
  let ready = false;
  /** Told when the running worker says it is ready (true), or is gone first (false). */
  let onReady: ((warmed: boolean) => void) | undefined;

  const stop = () => {
    clearTimeout(idleTimer);
    idleTimer = undefined;
    const current = worker;
    worker = undefined;
    ready = false;
    const waiting = onReady;
    onReady = undefined;
    waiting?.(false);
    void current?.terminate();
  };

  const finish = (job: Task): boolean => {
    if (running !== job) return false;
    running = undefined;
    clearTimeout(job.timer);
    return true;
  };

  const fail = (job: Task, how: LaneError['stop'], message: string) => {
    if (!finish(job)) return;
    // The worker may hold parts of this rendering, or still be busy with it.
    stop();
    job.reject(laneError(how, message));
    pump();
  };

  const start = (): Worker => {
    const started = new Worker(
      options.workerPath,
      options.resourceLimits ? { resourceLimits: options.resourceLimits } : {},
    );
    started.unref();
    started.on('message', (reply: RenderReply | { readonly ready: true }) => {
      if ('ready' in reply) {
        if (started !== worker) return;
        ready = true;
        const waiting = onReady;
        onReady = undefined;
        waiting?.(true);
        return;
      }
      const job = running;
      if (started !== worker || !job || reply.id !== job.id || !finish(job)) return;
      if (reply.ok) job.resolve(reply.text);
      else job.reject(laneError('error', `${job.what} could not be rendered: ${reply.message}`));
      pump();
    });
    const failed = (error: Error) => {
      if (started !== worker) return;
      const job = running;
      if (job)
        fail(job, 'failed', `${job.what} could not be rendered: the render worker failed (${error.message})`);
      else stop();
    };
    started.on('error', failed);
    started.on('exit', (code) => failed(new Error(`it exited with code ${code}`)));
    worker = started;
    ready = options.readyTimeoutMs === undefined;
    return started;
  };

  /** Start the worker when there is none and wait until it says it is ready (bounded). */
  const warm = async (job: Task): Promise<boolean> => {
    if (!worker) start();
    if (ready) return true;
    const warmed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), options.readyTimeoutMs);
      onReady = (ok) => {
        clearTimeout(timer);
        resolve(ok);
      };
    });
    if (running !== job) return false;
    if (!warmed) fail(job, 'failed', `${job.what} could not be rendered: its worker did not start in time`);
    return warmed;
  };

  const dispatch = async (job: Task) => {
    running = job;
    // The deadline is the rendering's own: a worker's cold start is bounded apart.
    if (!(await warm(job))) return;
    job.timer = setTimeout(
      () =>
        fail(
          job,
          'deadline',
          `rendering ${job.what} took longer than ${options.timeoutMs} ms; it was stopped`,
        ),
      options.timeoutMs,
    );
    for (const request of job.requests) {
      // Also before the first: the caller's task (e.g. reading the catalog) has taken its share.
      await turn();
      if (running !== job) return;
      try {
        (worker ?? start()).postMessage(request);
      } catch (error) {
        // Not cloneable: nested too deeply for the structured clone, or not plain data.
        const reason = error instanceof Error ? error.message : String(error);
        fail(
          job,
          'failed',
          `${job.what} cannot be rendered: its schemas are not plain JSON data (${reason})`,
        );
        return;
      }
    }
  };

  const pump = () => {
    if (running || closed) return;
    const job = queue.shift();
    if (job) {
      clearTimeout(idleTimer);
      idleTimer = undefined;
      void dispatch(job);
    } else if (worker && !idleTimer) {
      idleTimer = setTimeout(stop, options.idleTimeoutMs);
      idleTimer.unref();
    }
  };

  return {
    run(what, requests) {
      if (closed)
        return Promise.reject(
          laneError('closed', `${what} cannot be rendered: the environment was torn down`),
        );
      return new Promise<string>((resolve, reject) => {
        const id = nextId++;
        queue.push({ id, what, requests: requests(id), resolve, reject });
        pump();
      });
    },
    close() {
      closed = true;
      const torn = (job: Task) =>
        job.reject(laneError('closed', `rendering ${job.what} was stopped: the environment was torn down`));
      for (const job of queue.splice(0)) torn(job);
      const job = running;
      if (job && finish(job)) torn(job);
      stop();
    },
  };
}
