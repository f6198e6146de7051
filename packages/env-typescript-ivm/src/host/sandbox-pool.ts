import type { EgressChannel, ExecutionExitState } from '@cyrnel/sdk';
import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import type { RunJob, RunResult } from '../shared/run-job';
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

/**
 * A supervised pool of sandbox children with a FIFO queue beyond what they take: an execution
 * goes to a child without work, else to a child whose executions all await the host (up to
 * `executionsPerChild`), else it waits.
 */
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
  /** Sandbox children at most: executions computing at once. */
  readonly size: number;
  /**
   * Executions one child may host at once (default 1): beyond the first, only while all of its
   * executions await the host, so awaiting programs never hold the CPU slots.
   */
  readonly executionsPerChild?: number;
  readonly childPath: string;
  readonly memoryLimitMb: number;
  /** Opens each child's channel to the egress gateway (absent: every call goes through the host). */
  readonly openEgress?: () => EgressChannel;
  /** How long a child may take to honour a stop before it is killed. */
  readonly graceMs?: number;
  /**
   * A child left without work this long exits (0: never); work arriving later forks children
   * again, up to `size`. The pool starts warm either way.
   */
  readonly idleTimeoutMs?: number;
  /** Told when a child was forked. */
  readonly onChildStart?: (event: { readonly pid: number | undefined }) => void;
  /** Told when a child died while the pool is open; it is replaced after `respawnDelayMs`. */
  readonly onChildExit?: (event: ChildExitEvent) => void;
  /** Told when an idle child was stopped after `idleTimeoutMs` (it is not replaced until work comes). */
  readonly onChildRetire?: (event: { readonly pid: number | undefined }) => void;
}

/** A child that died while the pool was open. */
export interface ChildExitEvent extends ChildExit {
  readonly pid: number | undefined;
  /** False when it died before it ever answered (a start-up failure, which backs off). */
  readonly started: boolean;
  /** Wait before the replacement is forked: 0 unless children keep dying at start-up. */
  readonly respawnDelayMs: number;
}

interface Waiting {
  readonly eid: number;
  readonly job: RunJob;
  readonly handlers: PoolHandlers;
  readonly settle: (result: RunResult) => void;
}

/**
 * Create the pool and fork its children (warm from the start). Children left idle for
 * `idleTimeoutMs` are stopped; queued work forks them again, never more than `size` at once.
 */
export function createSandboxPool(options: SandboxPoolOptions): SandboxPool {
  const graceMs = options.graceMs ?? 1000;
  const perChild = Math.max(1, options.executionsPerChild ?? 1);
  const idleTimeoutMs = Math.min(options.idleTimeoutMs ?? 0, MAX_TIMER_DELAY_MS);
  const idle: SandboxProcess[] = [];
  const idleTimers = new Map<SandboxProcess, NodeJS.Timeout>();
  const retired = new Set<SandboxProcess>();
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
      ...(options.openEgress ? { egress: options.openEgress() } : {}),
      onActivity: () => pump(),
      onExit: (dead, how) => {
        children.delete(dead);
        takeIdle(dead);
        if (retired.delete(dead) || closed) return;
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
    putIdle(child);
    options.onChildStart?.({ pid: child.pid });
  };

  const retire = (child: SandboxProcess) => {
    takeIdle(child);
    retired.add(child);
    options.onChildRetire?.({ pid: child.pid });
    void child.destroy();
  };
  const putIdle = (child: SandboxProcess) => {
    idle.push(child);
    if (idleTimeoutMs > 0) {
      const timer = setTimeout(() => retire(child), idleTimeoutMs);
      timer.unref();
      idleTimers.set(child, timer);
    }
  };
  /** Take `child` out of the idle list (no-op when it is not there). */
  const takeIdle = (child: SandboxProcess) => {
    const at = idle.indexOf(child);
    if (at >= 0) idle.splice(at, 1);
    clearTimeout(idleTimers.get(child));
    idleTimers.delete(child);
  };

  /** The least loaded live child whose executions all await the host, with room for one more. */
  const awaitingChild = () => {
    let best: SandboxProcess | undefined;
    for (const child of children) {
      const { executions } = child;
      if (!child.alive || retired.has(child) || executions === 0 || executions >= perChild) continue;
      if (child.awaiting === executions && (!best || executions < best.executions)) best = child;
    }
    return best;
  };
  /** A child for the next execution: an idle one, a new one while under `size`, else a sharing one. */
  const pick = () => {
    if (idle.length > 0) return idle[0];
    // Retired children come back on demand; a respawn already pending counts as one.
    if (children.size - retired.size + respawns.size < options.size) {
      spawn();
      return idle[0];
    }
    return awaitingChild();
  };

  const pump = () => {
    while (!closed && queue.length > 0) {
      const child = pick();
      if (!child) return;
      const next = queue.shift() as Waiting;
      takeIdle(child);
      // The child enforces the deadline itself; this backstop covers a child that stopped answering.
      const backstop = setTimeout(
        () => child.stop(next.eid, 'timeout', graceMs),
        Math.min(next.job.timeoutMs + graceMs, MAX_TIMER_DELAY_MS),
      );
      busy.set(next.eid, { process: child, backstop });
      next.handlers.started();
      void child.run(next.eid, next.job, next.handlers).then((result) => {
        clearTimeout(backstop);
        busy.delete(next.eid);
        if (child.alive && !closed && child.executions === 0 && !retired.has(child)) putIdle(child);
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
      for (const timer of idleTimers.values()) clearTimeout(timer);
      idleTimers.clear();
      for (const waiting of queue.splice(0)) waiting.settle({ exit: 'canceled' });
      for (const [eid, { process }] of busy) process.stop(eid, 'canceled', 0);
      await Promise.all([...children].map((child) => child.destroy()));
      idle.length = 0;
    },
  };
}
