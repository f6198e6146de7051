import { Worker } from 'node:worker_threads';
import type { RenderReply, RenderRequest } from './render-worker';

/** Options of {@link createRenderLane}. */
export interface RenderLaneOptions {
  /** Path of the built `render-worker.js`. */
  readonly workerPath: string;
  /** Deadline of one rendering, from its first message; past it the worker is terminated. */
  readonly timeoutMs: number;
  /** A worker without work this long exits (started again on demand). */
  readonly idleTimeoutMs: number;
}

/**
 * One render worker and its FIFO queue: one rendering at a time, each under a deadline. The
 * worker starts on the first rendering; one that misses its deadline or fails is terminated and
 * the next rendering starts a fresh one.
 */
export interface RenderLane {
  /**
   * Post `requests` (one rendering: every message but the last is a part) and resolve with the
   * text the worker answers to the last. `what` names the rendering in errors.
   */
  run(what: string, requests: (id: number) => readonly RenderRequest[]): Promise<string>;
  /** Terminate the worker; queued and running renderings reject, later ones too. */
  close(): void;
}

interface Job {
  readonly id: number;
  readonly what: string;
  readonly requests: readonly RenderRequest[];
  readonly resolve: (text: string) => void;
  readonly reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Let the event loop serve other work before each message of a rendering. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Create a lane; no worker runs until the first rendering. */
export function createRenderLane(options: RenderLaneOptions): RenderLane {
  const queue: Job[] = [];
  let worker: Worker | undefined;
  let running: Job | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 1;
  let closed = false;

  const stop = () => {
    clearTimeout(idleTimer);
    idleTimer = undefined;
    const current = worker;
    worker = undefined;
    void current?.terminate();
  };

  const finish = (job: Job): boolean => {
    if (running !== job) return false;
    running = undefined;
    clearTimeout(job.timer);
    return true;
  };

  const fail = (job: Job, message: string) => {
    if (!finish(job)) return;
    // The worker may hold parts of this rendering, or still be busy with it.
    stop();
    job.reject(new Error(message));
    pump();
  };

  const start = (): Worker => {
    const started = new Worker(options.workerPath);
    started.unref();
    started.on('message', (reply: RenderReply) => {
      const job = running;
      if (started !== worker || !job || reply.id !== job.id || !finish(job)) return;
      if (reply.ok) job.resolve(reply.text);
      else job.reject(new Error(`${job.what} could not be rendered: ${reply.message}`));
      pump();
    });
    const failed = (error: Error) => {
      if (started !== worker) return;
      const job = running;
      if (job) fail(job, `${job.what} could not be rendered: the render worker failed (${error.message})`);
      else stop();
    };
    started.on('error', failed);
    started.on('exit', (code) => failed(new Error(`it exited with code ${code}`)));
    worker = started;
    return started;
  };

  const dispatch = async (job: Job) => {
    running = job;
    job.timer = setTimeout(
      () => fail(job, `rendering ${job.what} took longer than ${options.timeoutMs} ms; it was stopped`),
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
        fail(job, `${job.what} cannot be rendered: its schemas are not plain JSON data (${reason})`);
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
        return Promise.reject(new Error(`${what} cannot be rendered: the environment was torn down`));
      return new Promise<string>((resolve, reject) => {
        const id = nextId++;
        queue.push({ id, what, requests: requests(id), resolve, reject });
        pump();
      });
    },
    close() {
      closed = true;
      const torn = (job: Job) =>
        job.reject(new Error(`rendering ${job.what} was stopped: the environment was torn down`));
      for (const job of queue.splice(0)) torn(job);
      const job = running;
      if (job && finish(job)) torn(job);
      stop();
    },
  };
}
