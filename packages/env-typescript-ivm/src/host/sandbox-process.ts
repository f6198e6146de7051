import { type ChildProcess, fork } from 'node:child_process';
import type { CatalogChange, DirectCallEvent } from '@cyrnel/sdk';
import { callError, toCallError } from '../shared/call-error';
import type { RunJob, RunResult } from '../shared/run-job';
import {
  AUDIT_FD,
  type AuditLine,
  CATASTROPHIC_ERROR_MARKER,
  type ChildBatch,
  type ChildMessage,
  type ChildSettings,
  type HostMessage,
} from '../shared/sandbox-protocol';

/**
 * Child messages handled per event-loop turn (a batch of 5,000 calls once stalled the server
 * ≈ 100 ms). Each call's database reads finish in the turn that started them (the store's
 * promises settle in microtasks), so the bound is on work: at 256, 2,000 calls to tools that do
 * not exist (a preparation and a gated call each) held /health for ≈ 300 ms; at 64, well under.
 */
const HANDLED_PER_TURN = 64;

/** Host-side handlers of one execution's events. */
export interface ExecutionHandlers {
  /** Answer a host call from the sandbox (bindings), or a direct call's preparation. */
  call(kind: Extract<ChildMessage, { t: 'call' }>['kind'], args: readonly unknown[]): Promise<unknown>;
  /** A tool call the child made itself (for the audit). */
  direct?(event: DirectCallEvent): void;
  /** stdout/stderr text (already capped by the child). */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** An output patch as JSON text. */
  output(json: string): void;
}

/** One supervised sandbox child running executions, each in an isolate of its own. */
export interface SandboxProcess {
  /** The child's process id (undefined when it could not be forked). */
  readonly pid: number | undefined;
  /** True until the child exits. */
  readonly alive: boolean;
  /** True once the child has sent anything (it started serving). */
  readonly ready: boolean;
  /** Executions running in this child. */
  readonly executions: number;
  /** Of those, how many the child reported awaiting the host (their isolates idle). */
  readonly awaiting: number;
  /** Run one execution; resolves when it ends, also when the child dies under it (all of its executions fail). */
  run(eid: number, job: RunJob, handlers: ExecutionHandlers): Promise<RunResult>;
  /** Stop execution `eid` with `reason`; the child is killed when it does not answer within `graceMs`. */
  stop(eid: number, reason: 'timeout' | 'canceled', graceMs: number): void;
  /**
   * Tell the child the catalog changed; resolves once it dropped what direct calls prepared, or
   * once it is dead: a child that does not answer within `graceMs` is killed.
   */
  catalogChanged(change: CatalogChange, graceMs: number): Promise<void>;
  /** Kill the child (SIGKILL) and wait for its exit. */
  destroy(): Promise<void>;
}

/** Options of {@link spawnSandboxProcess}. */
export interface SandboxProcessOptions {
  /** Absolute path of the built `sandbox-child.js`. */
  readonly childPath: string;
  readonly memoryLimitMb: number;
  /** Where the child loads the host's direct-call runtime (absent: every call goes through the host). */
  readonly directCallRuntimeUrl?: string;
  /** Called once when the child has exited and its stderr is drained (crash or destroy). */
  readonly onExit: (process: SandboxProcess, how: ChildExit) => void;
  /** Called when one of its executions started or stopped awaiting the host. */
  readonly onActivity?: (process: SandboxProcess) => void;
}

interface Job {
  readonly eid: number;
  readonly handlers: ExecutionHandlers;
  readonly settle: (result: RunResult) => void;
  /** Audit lines read for it so far. */
  audited: number;
  /** Its end, held until the audit lines its `done` announced have been read. */
  held?: { readonly lines: number; readonly result: RunResult };
  forced?: 'timeout' | 'canceled';
  awaiting?: boolean;
  killTimer?: NodeJS.Timeout;
}

/** How a child ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * Why a child died, for `setError`. A child that aborts on isolated-vm's `onCatastrophicError`
 * says why on stderr first: V8 running out of heap (Map/Set/dictionary growth) reads "out of
 * memory" there and is reported as the memory limit; any other catastrophic error is named as
 * such. A bare SIGABRT (no report) is still most likely V8's own heap OOM.
 */
function crashMessage(
  signal: NodeJS.Signals | null,
  code: number | null,
  stderrTail: string,
  limitMb: number,
) {
  const outOfMemory = `The sandbox ran out of memory (memory limit ${limitMb} MB hit); the execution was stopped and the sandbox restarted`;
  const at = stderrTail.lastIndexOf(CATASTROPHIC_ERROR_MARKER);
  if (at >= 0) {
    const reported =
      stderrTail
        .slice(at + CATASTROPHIC_ERROR_MARKER.length)
        .split('\n')[0]
        ?.trim() ?? '';
    if (/out.of.memory|heap limit|allocation failed/i.test(reported)) return outOfMemory;
    return `The sandbox's JavaScript engine hit a catastrophic error (${reported || 'no details'}); the execution was stopped and the sandbox restarted`;
  }
  if (
    signal === 'SIGABRT' ||
    /out of memory|heap limit|allocation failed/i.test(stderrTail) ||
    code === 134
  ) {
    return outOfMemory;
  }
  return `The sandbox process exited unexpectedly (${signal ?? `code ${code}`}); the execution was stopped and the sandbox restarted`;
}

/** Fork a sandbox child. */
export function spawnSandboxProcess(options: SandboxProcessOptions): SandboxProcess {
  const settings: ChildSettings = {
    memoryLimitMb: options.memoryLimitMb,
    ...(options.directCallRuntimeUrl ? { directCallRuntimeUrl: options.directCallRuntimeUrl } : {}),
  };
  const child: ChildProcess = fork(options.childPath, [JSON.stringify(settings)], {
    // The child's own heap only carries IPC values; isolates have their own limit.
    execArgv: ['--no-node-snapshot', `--max-old-space-size=${Math.max(256, options.memoryLimitMb * 2)}`],
    serialization: 'advanced',
    // fd 4: the audit pipe of direct tool calls (AUDIT_FD), written synchronously by the child.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc', 'pipe'],
    // Its own process group: a Ctrl-C in the server's terminal reaches the server, whose graceful
    // shutdown stops executions in order, not the children at once. The IPC channel still ties
    // the child to the host (it exits on disconnect), so it never outlives the server.
    detached: true,
  });
  let alive = true;
  let ready = false;
  let stderrTail = '';
  const jobs = new Map<number, Job>();
  let awaiting = 0;
  // 'close' comes after 'exit' once stderr is drained, so the crash message sees the last lines.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const post = (message: HostMessage) => {
    if (!alive || !child.connected) return;
    try {
      child.send(message);
    } catch {
      // A value the bindings returned that cannot be cloned: answer the call with an error instead.
      if (message.t === 'reply') {
        child.send({
          t: 'reply',
          id: message.id,
          ok: false,
          error: callError('upstream_failed', 'The tool result could not be copied into the sandbox'),
        });
      }
    }
  };
  const finish = (job: Job, result: RunResult) => {
    jobs.delete(job.eid);
    if (job.awaiting) awaiting--;
    clearTimeout(job.killTimer);
    job.settle(result);
  };
  const acks = new Map<number, () => void>();
  let nextAck = 1;
  const handle = (message: ChildMessage) => {
    if (message.t === 'ready') return;
    if (message.t === 'ack') {
      acks.get(message.id)?.();
      return;
    }
    const job = jobs.get(message.eid);
    if (!job) return;
    if (message.t === 'activity') {
      if (job.awaiting === message.awaiting) return;
      job.awaiting = message.awaiting;
      awaiting += message.awaiting ? 1 : -1;
      options.onActivity?.(self);
    } else if (message.t === 'call') {
      job.handlers.call(message.kind, message.args).then(
        (value) => post({ t: 'reply', id: message.id, ok: true, value }),
        (error: unknown) => post({ t: 'reply', id: message.id, ok: false, error: toCallError(error) }),
      );
    } else if (message.t === 'stdout' || message.t === 'stderr') job.handlers.write(message.t, message.text);
    else if (message.t === 'output') job.handlers.output(message.json);
    else if (message.t === 'done') {
      const result: RunResult = job.forced
        ? { exit: job.forced }
        : { exit: message.exit, ...(message.error === undefined ? {} : { error: message.error }) };
      const lines = typeof message.audited === 'number' ? message.audited : 0;
      // Every call the run made is recorded before its end: lines still in the pipe come first.
      if (job.audited < lines) job.held = { lines, result };
      else finish(job, result);
    }
  };

  // Audit lines (direct tool calls): whole lines are parsed as they come, in order.
  let auditTail = '';
  const auditLine = (text: string) => {
    let line: AuditLine;
    try {
      line = JSON.parse(text) as AuditLine;
    } catch {
      return;
    }
    const job = typeof line?.eid === 'number' ? jobs.get(line.eid) : undefined;
    if (!job) return;
    job.audited++;
    job.handlers.direct?.(line.event);
    if (job.held && job.audited >= job.held.lines) finish(job, job.held.result);
  };
  child.stdio[AUDIT_FD]?.on('data', (chunk: Buffer) => {
    const text = auditTail + chunk.toString('utf8');
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      auditLine(text.slice(start, end));
      start = end + 1;
    }
    auditTail = text.slice(start);
  });

  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4096);
  });
  // A batch can hold thousands of calls (a `Promise.all` in the sandbox): they are handled in
  // order, HANDLED_PER_TURN at a time, so the server's event loop answers other requests between.
  let inbox: ChildMessage[] = [];
  let next = 0;
  let draining = false;
  const drainSome = () => {
    const end = Math.min(inbox.length, next + HANDLED_PER_TURN);
    while (next < end) handle(inbox[next++] as ChildMessage);
    if (next < inbox.length) {
      setImmediate(drainSome);
      return;
    }
    inbox = [];
    next = 0;
    draining = false;
  };
  const drainAll = () => {
    while (next < inbox.length) handle(inbox[next++] as ChildMessage);
    inbox = [];
    next = 0;
  };
  child.on('message', (message: ChildBatch) => {
    if (message?.t !== 'batch' || !Array.isArray(message.m)) return;
    ready = true;
    for (const m of message.m) inbox.push(m);
    if (!draining) {
      draining = true;
      drainSome();
    }
  });
  child.on('error', () => {});
  child.once('exit', () => {
    alive = false;
  });
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    alive = false;
    // What the child said before it went comes first (an exit it reported is not a crash).
    drainAll();
    // Every execution the child held goes down with it; each is recorded on its own.
    const crash = crashMessage(signal, code, stderrTail, options.memoryLimitMb);
    const shared = jobs.size > 1 ? ` (with ${jobs.size - 1} other execution(s) sharing the sandbox)` : '';
    for (const job of [...jobs.values()]) {
      // A run that ended before the crash keeps its own end (only its audit lines were pending).
      finish(
        job,
        job.held?.result ??
          (job.forced ? { exit: job.forced } : { exit: 'failed', error: `${crash}${shared}` }),
      );
    }
    options.onExit(self, { code, signal });
  });

  const self: SandboxProcess = {
    pid: child.pid,
    get alive() {
      return alive;
    },
    get ready() {
      return ready;
    },
    get executions() {
      return jobs.size;
    },
    get awaiting() {
      return awaiting;
    },
    run(eid, job, handlers) {
      return new Promise<RunResult>((settle) => {
        if (!alive) {
          settle({ exit: 'failed', error: 'The sandbox process is not running' });
          return;
        }
        jobs.set(eid, { eid, handlers, settle, audited: 0 });
        post({ t: 'run', eid, job });
      });
    },
    stop(eid, reason, graceMs) {
      const job = jobs.get(eid);
      if (!job || job.forced) return;
      job.forced = reason;
      post({ t: 'kill', eid });
      job.killTimer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    },
    catalogChanged(change, graceMs) {
      if (!alive) return Promise.resolve();
      const id = nextAck++;
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          acks.delete(id);
          resolve();
        };
        // A child that cannot answer may still hold what changed: it does not outlive the change.
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          void exited.then(done);
        }, graceMs);
        acks.set(id, done);
        void exited.then(done);
        post({ t: 'catalog', id, change });
      });
    },
    async destroy() {
      if (alive) child.kill('SIGKILL');
      await exited;
    },
  };
  return self;
}
