import type { ExecutionExitState } from '@cyrnel/sdk';
import type { RunJob, RunResult } from './isolate-runner';
import {
  type ChildExit,
  type ExecutionHandlers,
  type SandboxProcess,
  spawnSandboxProcess,
} from './sandbox-process';

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
  /** Told when a child was forked. */
  readonly onChildStart?: (event: { readonly pid: number | undefined }) => void;
  /** Told when a child died while the pool is open; it is replaced after `respawnDelayMs`. */
  readonly onChildExit?: (event: ChildExitEvent) => void;
}

/** A child that died while the pool was open. */
export interface ChildExitEvent extends ChildExit {
  readonly pid: number | undefined;
  /** False when it died before it ever answered (a start-up failure, which backs off). */
  readonly started: boolean;
  /** Wait before the replacement is forked: 0 unless children keep dying at start-up. */
  readonly respawnDelayMs: number;
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
  let startupDeaths = 0;
  const respawns = new Set<NodeJS.Timeout>();

  const spawn = () => {
    const child = spawnSandboxProcess({
      childPath: options.childPath,
      memoryLimitMb: options.memoryLimitMb,
      onExit: (dead, how) => {
        children.delete(dead);
        const at = idle.indexOf(dead);
        if (at >= 0) idle.splice(at, 1);
        if (closed) return;
        // A child that cannot even start (broken install) must not become a fork loop: back off.
        // One that served and then died (a memory bomb) is replaced at once, however young.
        startupDeaths = dead.ready ? 0 : startupDeaths + 1;
        const delay = startupDeaths > 1 ? Math.min(5000, 50 * 2 ** startupDeaths) : 0;
        options.onChildExit?.({ ...how, pid: dead.pid, started: dead.ready, respawnDelayMs: delay });
        const respawn = setTimeout(() => {
          respawns.delete(respawn);
          if (closed) return;
          spawn();
          pump();
        }, delay);
        respawns.add(respawn);
      },
    });
    children.add(child);
    idle.push(child);
    options.onChildStart?.({ pid: child.pid });
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
      for (const respawn of respawns) clearTimeout(respawn);
      respawns.clear();
      for (const waiting of queue.splice(0)) waiting.settle({ exit: 'canceled' });
      for (const [eid, { process }] of busy) process.stop(eid, 'canceled', 0);
      await Promise.all([...children].map((child) => child.destroy()));
      idle.length = 0;
    },
  };
}
