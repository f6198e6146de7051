import { type ChildProcess, fork } from 'node:child_process';
import { type EgressChannel, isJsonText } from '@cyrnel/sdk';
import { callError, toCallError } from '../shared/call-error';
import type { RunJob, RunResult } from '../shared/run-job';
import type { ChildBatch, ChildMessage, ChildSettings, HostMessage } from '../shared/sandbox-protocol';
import { createChildInbox } from './child-inbox';
import { describeCrash } from './crash-message';
import { judgeCrash, type SandboxRunResult } from './crash-verdict';

/** Characters of JSON text per message to a child (a reply of more goes in `reply-part` slices). */
const JSON_SLICE = 1024 * 1024;

/** Host-side handlers of one execution's events. */
export interface ExecutionHandlers {
  /** Answer a host call from the sandbox (bindings). */
  call(kind: Extract<ChildMessage, { t: 'call' }>['kind'], args: readonly unknown[]): Promise<unknown>;
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
  /**
   * Run one execution; resolves when it ends, also when the child dies under it (each of its
   * executions is judged: `judgeCrash`).
   */
  run(eid: number, job: RunJob, handlers: ExecutionHandlers): Promise<SandboxRunResult>;
  /**
   * Execution `eid` acted outside the sandbox by a way this handle does not see (a tool call
   * through another channel): should the child crash, it is not run again.
   */
  touch(eid: number): void;
  /**
   * Stop (`true`) or restart (`false`) the clock of execution `eid`'s deadline in the child;
   * unknown or stopping executions are ignored.
   */
  pauseDeadline(eid: number, paused: boolean): void;
  /** Stop execution `eid` with `reason`; the child is killed when it does not answer within `graceMs`. */
  stop(eid: number, reason: 'timeout' | 'canceled', graceMs: number): void;
  /** Kill the child (SIGKILL) and wait for its exit. */
  destroy(): Promise<void>;
}

/** Options of {@link spawnSandboxProcess}. */
export interface SandboxProcessOptions {
  /** Absolute path of the built `sandbox-child.js`. */
  readonly childPath: string;
  readonly memoryLimitMb: number;
  /**
   * The child's channel to the egress gateway (absent: every call goes through the host): sent
   * over IPC, each execution granted before it starts and revoked when it ends or is stopped,
   * closed with the child.
   */
  readonly egress?: EgressChannel;
  /** Called once when the child has exited and its stderr is drained (crash or destroy). */
  readonly onExit: (process: SandboxProcess, how: ChildExit) => void;
  /** Called when one of its executions started or stopped awaiting the host. */
  readonly onActivity?: (process: SandboxProcess) => void;
}

interface Job {
  readonly eid: number;
  readonly handlers: ExecutionHandlers;
  readonly settle: (result: SandboxRunResult) => void;
  /** It made a tool call or wrote something: a crash of the child must not run it again. */
  touched: boolean;
  forced?: 'timeout' | 'canceled';
  awaiting?: boolean;
  killTimer?: NodeJS.Timeout;
}

/** How a child ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Fork a sandbox child. */
export function spawnSandboxProcess(options: SandboxProcessOptions): SandboxProcess {
  const settings: ChildSettings = { memoryLimitMb: options.memoryLimitMb };
  const { egress } = options;
  // The child's own heap only carries IPC values; isolates have their own limit.
  const processHeapMb = Math.max(256, options.memoryLimitMb * 2);
  const child: ChildProcess = fork(options.childPath, [JSON.stringify(settings)], {
    execArgv: ['--no-node-snapshot', `--max-old-space-size=${processHeapMb}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
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
  // JSON text goes in slices, one per turn of the event loop: serialising 15 MB for the pipe at
  // once held it for tens of milliseconds per answer.
  const postJson = async (id: number, json: string) => {
    let at = 0;
    for (; json.length - at > JSON_SLICE; at += JSON_SLICE) {
      post({ t: 'reply-part', id, json: json.slice(at, at + JSON_SLICE) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    post({ t: 'reply', id, ok: true, json: json.slice(at) });
  };
  // The channel goes over IPC (argv and the environment are readable by other local users).
  if (egress) post({ t: 'egress', endpoints: egress.endpoints, token: egress.token });
  const finish = (job: Job, result: SandboxRunResult) => {
    jobs.delete(job.eid);
    // Refused from now on; calls still in flight at the gateway are aborted.
    egress?.revoke(job.eid);
    if (job.awaiting) awaiting--;
    clearTimeout(job.killTimer);
    job.settle(result);
  };
  const handle = (message: ChildMessage) => {
    if (message.t === 'ready') return;
    const job = jobs.get(message.eid);
    if (!job) return;
    if (message.t === 'activity') {
      if (job.awaiting === message.awaiting) return;
      job.awaiting = message.awaiting;
      awaiting += message.awaiting ? 1 : -1;
      options.onActivity?.(self);
    } else if (message.t === 'call') {
      // Discovery only reads the catalog; a tool call (or preparing one) may act on the world.
      if (message.kind === 'invoke') job.touched = true;
      job.handlers.call(message.kind, message.args).then(
        // A result handed on as JSON text is parsed in the child, never on this thread.
        (value) =>
          isJsonText(value)
            ? postJson(message.id, value.text)
            : post({ t: 'reply', id: message.id, ok: true, value }),
        (error: unknown) => post({ t: 'reply', id: message.id, ok: false, error: toCallError(error) }),
      );
    } else if (message.t === 'stdout' || message.t === 'stderr') {
      job.touched = true;
      job.handlers.write(message.t, message.text);
    } else if (message.t === 'output') {
      job.touched = true;
      job.handlers.output(message.json);
    } else if (message.t === 'done') {
      // The child's claim of its CPU time: kept only as a finite, non-negative number (the host's
      // process manager also bounds it by the wall time it measured).
      const { cpuMs } = message as { cpuMs?: unknown };
      const cpu = typeof cpuMs === 'number' && Number.isFinite(cpuMs) && cpuMs >= 0 ? { cpuMs } : {};
      const result: RunResult = job.forced
        ? { exit: job.forced, ...cpu }
        : { exit: message.exit, ...(message.error === undefined ? {} : { error: message.error }), ...cpu };
      finish(job, result);
    }
  };

  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4096);
  });
  const inbox = createChildInbox(handle);
  child.on('message', (message: ChildBatch) => {
    if (message?.t !== 'batch' || !Array.isArray(message.m)) return;
    ready = true;
    inbox.receive(message.m);
  });
  child.on('error', () => {});
  child.once('exit', () => {
    alive = false;
    egress?.close();
  });
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    alive = false;
    // What the child said before it went comes first (an exit it reported is not a crash).
    inbox.drainAll();
    // Every execution the child held goes down with it; each is judged on its own: the cause,
    // the others (run again when they did nothing visible yet), those being stopped anyway.
    const crash = describeCrash({ signal, code, stderrTail, limitMb: options.memoryLimitMb, processHeapMb });
    const verdicts = judgeCrash(
      crash,
      [...jobs.values()].map((job) => ({
        eid: job.eid,
        touched: job.touched,
        awaiting: job.awaiting === true,
        forced: job.forced !== undefined,
      })),
    );
    for (const job of [...jobs.values()]) {
      const verdict = verdicts.get(job.eid);
      finish(job, job.forced ? { exit: job.forced } : (verdict ?? { exit: 'failed' }));
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
      return new Promise<SandboxRunResult>((settle) => {
        if (!alive) {
          settle({ exit: 'failed', error: 'The sandbox process is not running', reason: 'sandbox_crashed' });
          return;
        }
        const entry: Job = { eid, handlers, settle, touched: false };
        jobs.set(eid, entry);
        // Granted before it starts: its first tool call may come at once.
        const start = () => {
          if (jobs.get(eid) !== entry) return;
          if (entry.forced) finish(entry, { exit: entry.forced });
          else post({ t: 'run', eid, job });
        };
        if (egress) egress.grant(eid).then(start, start);
        else start();
      });
    },
    touch(eid) {
      const job = jobs.get(eid);
      if (job) job.touched = true;
    },
    pauseDeadline(eid, paused) {
      const job = jobs.get(eid);
      if (job && !job.forced) post({ t: 'pause', eid, paused });
    },
    stop(eid, reason, graceMs) {
      const job = jobs.get(eid);
      if (!job || job.forced) return;
      job.forced = reason;
      egress?.revoke(eid);
      post({ t: 'kill', eid });
      job.killTimer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    },
    async destroy() {
      if (alive) child.kill('SIGKILL');
      await exited;
    },
  };
  return self;
}
