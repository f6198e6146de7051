import type { EgressChannel, EnvironmentStats, ExecutionExitState } from '@cyrnel/sdk';
import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import { createPausableTimer, type PausableTimer } from '../shared/pausable-timer';
import type { RunJob, RunResult } from '../shared/run-job';
import type { SandboxRunResult } from './crash-verdict';
import {
  type ChildExit,
  type ExecutionHandlers,
  type SandboxProcess,
  spawnSandboxProcess,
} from './sandbox-process';
import { placeExecution } from './tenant-placement';

/** Callbacks of one pooled execution. */
export interface PoolHandlers extends ExecutionHandlers {
  /** The execution got a sandbox and starts now. */
  started(): void;
}

/** How a pooled execution ended: `reason` when the sandbox, not the code, failed it. */
export interface PoolRunResult extends RunResult {
  readonly reason?: 'sandbox_crashed' | 'sandbox_collateral';
}

/**
 * A supervised pool of sandbox children with a FIFO queue beyond what they take. Each child
 * serves one tenant (API key) for its life: an execution goes to an idle child of its tenant or
 * one nobody used, else a new child, else a child of its tenant whose executions all await the
 * host (up to `executionsPerChild`), else an idle child of another tenant is stopped to make
 * room, else it waits (see `placeExecution`).
 */
export interface SandboxPool {
  /**
   * Queue one execution of `tenant` (absent: one shared tenant); resolves when it ends. A run
   * whose child crashed under it before it made a tool call or wrote anything is run again once
   * on a fresh child, with what is left of its deadline.
   */
  run(eid: number, job: RunJob, handlers: PoolHandlers, tenant?: string): Promise<PoolRunResult>;
  /** Cancel a queued or running execution; unknown ids are ignored. */
  kill(eid: number): void;
  /**
   * Running execution `eid` acted outside its sandbox by a way the pool does not see (a tool call
   * made through another channel than the child's messages): a crash of its child will fail it
   * instead of running it again. Unknown ids are ignored.
   *
   * @example
   * ```ts
   * gateway.onCall((eid) => pool.touched(eid));
   * ```
   */
  touched(eid: number): void;
  /**
   * Stop (`true`) or restart (`false`) the clock of running execution `eid`'s deadline, in its
   * child and in the pool's backstop, while the host holds one of its calls for a person's
   * approval; each goes on with the time that was left. Queued, finished and unknown ids are
   * ignored.
   *
   * @example
   * ```ts
   * pool.pauseDeadline(eid, true);
   * await approval;
   * pool.pauseDeadline(eid, false);
   * ```
   */
  pauseDeadline(eid: number, paused: boolean): void;
  /**
   * What the pool is doing now: children alive and idle, executions running and waiting for a
   * child, and since it was created the executions that had to wait and the children that died.
   */
  stats(): EnvironmentStats;
  /** Cancel queued work, stop running work, kill every child. */
  close(): Promise<void>;
}

/** Options of {@link createSandboxPool}. */
export interface SandboxPoolOptions {
  /** Sandbox children at most: executions computing at once. */
  readonly size: number;
  /** Children forked when the pool is created (default and at most `size`); the rest fork when work comes. */
  readonly warm?: number;
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
   * again, up to `size`. The pool starts with `warm` children either way.
   */
  readonly idleTimeoutMs?: number;
  /** Told when a child was forked. */
  readonly onChildStart?: (event: { readonly pid: number | undefined }) => void;
  /** Told when a child died while the pool is open; it is replaced after `respawnDelayMs`. */
  readonly onChildExit?: (event: ChildExitEvent) => void;
  /**
   * Told when an idle child was stopped: after `idleTimeoutMs` (`idle`), or to make room for
   * another tenant's execution (`tenant`). It is not replaced until work comes.
   */
  readonly onChildRetire?: (event: {
    readonly pid: number | undefined;
    readonly why: 'idle' | 'tenant';
  }) => void;
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
  readonly tenant: string;
  readonly job: RunJob;
  readonly handlers: PoolHandlers;
  readonly settle: (result: PoolRunResult) => void;
  /** `performance.now()` at its first start: a retry gets what is left of its deadline. */
  readonly startedAt?: number;
  /** This is its one retry after a crash. */
  readonly retried?: boolean;
  /** It shares its child with nobody (a retry after a crash nobody could be blamed for). */
  readonly alone?: boolean;
}

/** The result without the pool's own instructions. */
function publicResult({ exit, error, reason, cpuMs }: SandboxRunResult): PoolRunResult {
  return {
    exit,
    ...(error === undefined ? {} : { error }),
    ...(reason === undefined ? {} : { reason }),
    ...(cpuMs === undefined ? {} : { cpuMs }),
  };
}

/**
 * Create the pool and fork its `warm` children (all `size` by default). Children left idle for
 * `idleTimeoutMs` are stopped; queued work forks them again, never more than `size` at once.
 */
export function createSandboxPool(options: SandboxPoolOptions): SandboxPool {
  const graceMs = options.graceMs ?? 1000;
  const perChild = Math.max(1, options.executionsPerChild ?? 1);
  const idleTimeoutMs = Math.min(options.idleTimeoutMs ?? 0, MAX_TIMER_DELAY_MS);
  const idle: SandboxProcess[] = [];
  const idleTimers = new Map<SandboxProcess, NodeJS.Timeout>();
  const retired = new Set<SandboxProcess>();
  /** The tenant each child serves, from its first execution to its exit. */
  const tenantOf = new Map<SandboxProcess, string>();
  /** Children running an execution that must share its child with nobody. */
  const alone = new Set<SandboxProcess>();
  const busy = new Map<number, { process: SandboxProcess; backstop: PausableTimer }>();
  const queue: Waiting[] = [];
  const children = new Set<SandboxProcess>();
  let closed = false;
  let startupDeaths = 0;
  /** Executions that found no child at once, and children that died under the pool. */
  let waits = 0;
  let crashes = 0;
  const respawns = new Set<NodeJS.Timeout>();

  const spawn = () => {
    const child = spawnSandboxProcess({
      childPath: options.childPath,
      memoryLimitMb: options.memoryLimitMb,
      ...(options.openEgress ? { egress: options.openEgress() } : {}),
      onActivity: () => pump(),
      onExit: (dead, how) => {
        children.delete(dead);
        tenantOf.delete(dead);
        alone.delete(dead);
        takeIdle(dead);
        if (retired.delete(dead) || closed) return;
        crashes++;
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
    return child;
  };

  const retire = (child: SandboxProcess, why: 'idle' | 'tenant') => {
    takeIdle(child);
    retired.add(child);
    options.onChildRetire?.({ pid: child.pid, why });
    void child.destroy();
  };
  const putIdle = (child: SandboxProcess) => {
    // Executions of one child ending in the same turn each find it empty: it is idle once.
    if (idle.includes(child)) return;
    idle.push(child);
    if (idleTimeoutMs > 0) {
      const timer = setTimeout(() => retire(child, 'idle'), idleTimeoutMs);
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

  /** A child for the next execution of `tenant`, assigned to it; undefined: it waits. */
  const pick = (tenant: string, solo: boolean): SandboxProcess | undefined => {
    // Retired children come back on demand; a respawn already pending counts as one.
    const live = children.size - retired.size + respawns.size;
    const room = live < options.size;
    // Not while a respawn is pending: the fresh child it brings can take the work.
    const burst = respawns.size === 0 && live < options.size * perChild;
    const placement = placeExecution(
      { all: children, idle, retired, tenantOf, alone, room, burst, size: options.size, perChild },
      tenant,
      solo,
    );
    if (!placement) return undefined;
    if (placement.kind === 'evict') retire(placement.child, 'tenant');
    const child = placement.kind === 'spawn' || placement.kind === 'evict' ? spawn() : placement.child;
    takeIdle(child);
    tenantOf.set(child, tenant);
    return child;
  };

  const start = (next: Waiting, child: SandboxProcess) => {
    if (next.alone) alone.add(child);
    // The child enforces the deadline itself; this backstop covers a child that stopped answering.
    // Held whenever the child's clock may be (it holds less: only while the program awaits).
    const backstop = createPausableTimer(Math.min(next.job.timeoutMs + graceMs, MAX_TIMER_DELAY_MS), () =>
      child.stop(next.eid, 'timeout', graceMs),
    );
    busy.set(next.eid, { process: child, backstop });
    if (next.startedAt === undefined) next.handlers.started();
    const startedAt = next.startedAt ?? performance.now();
    void child.run(next.eid, next.job, next.handlers).then((result) => {
      backstop.clear();
      busy.delete(next.eid);
      if (child.executions === 0) alone.delete(child);
      if (child.alive && !closed && child.executions === 0 && !retired.has(child)) putIdle(child);
      const left = Math.floor(next.job.timeoutMs - (performance.now() - startedAt));
      if (result.retry && !next.retried && !closed && left > 0) {
        // Its child crashed before it did anything visible: once more, first in line.
        queue.unshift({
          ...next,
          job: { ...next.job, timeoutMs: left },
          startedAt,
          retried: true,
          alone: result.retry === 'alone',
        });
      } else next.settle(publicResult(result));
      pump();
    });
  };

  /**
   * Place what can be placed, in FIFO order. When an execution finds no child, no slot is free
   * (no idle child, no room, nothing to evict), so those behind it can only share a child of
   * their own tenant; a tenant that found none is not tried again in the same pass.
   */
  const pump = () => {
    const stuck = new Set<string>();
    for (let i = 0; !closed && i < queue.length; ) {
      const next = queue[i] as Waiting;
      const child = stuck.has(next.tenant) ? undefined : pick(next.tenant, next.alone === true);
      if (!child) {
        if (!next.alone) stuck.add(next.tenant);
        i++;
        continue;
      }
      queue.splice(i, 1);
      start(next, child);
    }
  };

  const warm = Math.min(options.size, Math.max(0, options.warm ?? options.size));
  for (let i = 0; i < warm; i++) spawn();

  return {
    run(eid, job, handlers, tenant = '') {
      if (closed) return Promise.resolve({ exit: 'canceled' as ExecutionExitState });
      return new Promise<PoolRunResult>((settle) => {
        const waiting: Waiting = { eid, tenant, job, handlers, settle };
        queue.push(waiting);
        pump();
        if (queue.includes(waiting)) waits++;
      });
    },
    stats: () => ({
      sandboxes: children.size - retired.size,
      idleSandboxes: idle.length,
      running: busy.size,
      queued: queue.length,
      waits,
      crashes,
    }),
    touched(eid) {
      busy.get(eid)?.process.touch(eid);
    },
    pauseDeadline(eid, paused) {
      const running = busy.get(eid);
      if (!running) return;
      running.backstop.hold(paused);
      running.process.pauseDeadline(eid, paused);
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
