import type { ExecutionExitState } from '@cyrnel/sdk';
import type { RunJob, RunResult } from './isolate-runner';
import { type ExecutionHandlers, type SandboxProcess, spawnSandboxProcess } from './sandbox-process';

/** Callbacks of one pooled execution. */
export interface PoolHandlers extends ExecutionHandlers {
  /** The execution got a sandbox and starts now. */
  started(): void;
}

/** A supervised pool of sandbox children with a FIFO queue beyond its size. */
export interface SandboxPool {
  /** Queue one execution; resolves when it ends. */
  run(eid: number, job: RunJob, handlers: PoolHandlers): Promise<RunResult>;
  /** Cancel a queued or running execution; unknown ids are ignored. */
  kill(eid: number): void;
  /** Cancel queued work, stop running work, kill every child. */
  close(): Promise<void>;
}

/** Options of {@link createSandboxPool}. */
export interface SandboxPoolOptions {
  readonly size: number;
  readonly childPath: string;
  readonly memoryLimitMb: number;
  /** How long a child may take to honour a stop before it is killed. */
  readonly graceMs?: number;
  /** Told when a child dies while the pool is open (it is replaced). */
  readonly onCrash?: (error: string | undefined) => void;
}

/** Longest delay Node timers accept; longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

interface Waiting {
  readonly eid: number;
  readonly job: RunJob;
  readonly handlers: PoolHandlers;
  readonly settle: (result: RunResult) => void;
}

/** Create the pool and fork its children (warm from the start). */
export function createSandboxPool(options: SandboxPoolOptions): SandboxPool {
  const graceMs = options.graceMs ?? 1000;
  const idle: SandboxProcess[] = [];
  const busy = new Map<number, { process: SandboxProcess; backstop: NodeJS.Timeout }>();
  const queue: Waiting[] = [];
  const children = new Set<SandboxProcess>();
  let closed = false;
  let quickDeaths = 0;
  let respawn: NodeJS.Timeout | undefined;

  const spawn = () => {
    const bornAt = Date.now();
    const child = spawnSandboxProcess({
      childPath: options.childPath,
      memoryLimitMb: options.memoryLimitMb,
      onExit: (dead) => {
        children.delete(dead);
        const at = idle.indexOf(dead);
        if (at >= 0) idle.splice(at, 1);
        if (closed) return;
        options.onCrash?.(undefined);
        // A child that cannot even start (broken install) must not become a fork loop: back off.
        quickDeaths = Date.now() - bornAt < 1000 ? quickDeaths + 1 : 0;
        const delay = quickDeaths > 1 ? Math.min(5000, 50 * 2 ** quickDeaths) : 0;
        respawn = setTimeout(() => {
          if (closed) return;
          spawn();
          pump();
        }, delay);
      },
    });
    children.add(child);
    idle.push(child);
  };

  const pump = () => {
    while (!closed && queue.length > 0 && idle.length > 0) {
      const next = queue.shift() as Waiting;
      const child = idle.shift() as SandboxProcess;
      // The child enforces the deadline itself; this backstop covers a child that stopped answering.
      const backstop = setTimeout(
        () => child.stop(next.eid, 'timeout', graceMs),
        Math.min(next.job.timeoutMs + graceMs, MAX_TIMER_MS),
      );
      busy.set(next.eid, { process: child, backstop });
      next.handlers.started();
      void child.run(next.eid, next.job, next.handlers).then((result) => {
        clearTimeout(backstop);
        busy.delete(next.eid);
        if (child.alive && !closed) idle.push(child);
        next.settle(result);
        pump();
      });
    }
  };

  for (let i = 0; i < options.size; i++) spawn();

  return {
    run(eid, job, handlers) {
      if (closed) return Promise.resolve({ exit: 'canceled' as ExecutionExitState });
      return new Promise<RunResult>((settle) => {
        queue.push({ eid, job, handlers, settle });
        pump();
      });
    },
    kill(eid) {
      const at = queue.findIndex((w) => w.eid === eid);
      if (at >= 0) {
        const [waiting] = queue.splice(at, 1);
        waiting?.settle({ exit: 'canceled' });
        return;
      }
      busy.get(eid)?.process.stop(eid, 'canceled', graceMs);
    },
    async close() {
      closed = true;
      clearTimeout(respawn);
      for (const waiting of queue.splice(0)) waiting.settle({ exit: 'canceled' });
      for (const [eid, { process }] of busy) process.stop(eid, 'canceled', 0);
      await Promise.all([...children].map((child) => child.destroy()));
      idle.length = 0;
    },
  };
}
