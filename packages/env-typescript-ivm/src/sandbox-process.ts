import { type ChildProcess, fork } from 'node:child_process';
import { toCallError } from './call-error';
import type { RunJob, RunResult } from './isolate-runner';
import {
  CATASTROPHIC_ERROR_MARKER,
  type ChildBatch,
  type ChildMessage,
  type ChildSettings,
  type HostMessage,
} from './sandbox-protocol';

/** Host-side handlers of one execution's events. */
export interface ExecutionHandlers {
  /** Answer a host call from the sandbox (bindings). */
  call(kind: Extract<ChildMessage, { t: 'call' }>['kind'], args: readonly unknown[]): Promise<unknown>;
  /** stdout/stderr text (already capped by the child). */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** An output patch as JSON text. */
  output(json: string): void;
}

/** One supervised sandbox child running one execution at a time. */
export interface SandboxProcess {
  /** The child's process id (undefined when it could not be forked). */
  readonly pid: number | undefined;
  /** True until the child exits. */
  readonly alive: boolean;
  /** True once the child has sent anything (it started serving). */
  readonly ready: boolean;
  /** Run one execution; resolves when it ends, also when the child dies under it. */
  run(eid: number, job: RunJob, handlers: ExecutionHandlers): Promise<RunResult>;
  /** Stop the running execution with `reason`; the child is killed when it does not answer within `graceMs`. */
  stop(eid: number, reason: 'timeout' | 'canceled', graceMs: number): void;
  /** Kill the child (SIGKILL) and wait for its exit. */
  destroy(): Promise<void>;
}

/** Options of {@link spawnSandboxProcess}. */
export interface SandboxProcessOptions {
  /** Absolute path of the built `sandbox-child.js`. */
  readonly childPath: string;
  readonly memoryLimitMb: number;
  /** Called once when the child has exited and its stderr is drained (crash or destroy). */
  readonly onExit: (process: SandboxProcess, how: ChildExit) => void;
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
  const settings: ChildSettings = { memoryLimitMb: options.memoryLimitMb };
  const child: ChildProcess = fork(options.childPath, [JSON.stringify(settings)], {
    // The child's own heap only carries IPC values; isolates have their own limit.
    execArgv: ['--no-node-snapshot', `--max-old-space-size=${Math.max(256, options.memoryLimitMb * 2)}`],
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
  let current:
    | {
        eid: number;
        handlers: ExecutionHandlers;
        settle(result: RunResult): void;
        forced?: 'timeout' | 'canceled';
      }
    | undefined;
  let killTimer: NodeJS.Timeout | undefined;
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
          error: {
            message: 'The tool result could not be copied into the sandbox',
            status: 502,
            code: 'upstream_error',
          },
        });
      }
    }
  };
  const finish = (result: RunResult) => {
    const job = current;
    current = undefined;
    clearTimeout(killTimer);
    job?.settle(result);
  };
  const handle = (message: ChildMessage) => {
    const job = current;
    if (message.t === 'ready' || !job || message.eid !== job.eid) return;
    if (message.t === 'call') {
      job.handlers.call(message.kind, message.args).then(
        (value) => post({ t: 'reply', id: message.id, ok: true, value }),
        (error: unknown) => post({ t: 'reply', id: message.id, ok: false, error: toCallError(error) }),
      );
    } else if (message.t === 'stdout' || message.t === 'stderr') job.handlers.write(message.t, message.text);
    else if (message.t === 'output') job.handlers.output(message.json);
    else if (message.t === 'done')
      finish(
        job.forced
          ? { exit: job.forced }
          : { exit: message.exit, ...(message.error === undefined ? {} : { error: message.error }) },
      );
  };

  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4096);
  });
  child.on('message', (message: ChildBatch) => {
    if (message?.t !== 'batch' || !Array.isArray(message.m)) return;
    ready = true;
    for (const m of message.m) handle(m);
  });
  child.on('error', () => {});
  child.once('exit', () => {
    alive = false;
  });
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    alive = false;
    const job = current;
    if (job)
      finish(
        job.forced
          ? { exit: job.forced }
          : { exit: 'failed', error: crashMessage(signal, code, stderrTail, options.memoryLimitMb) },
      );
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
    run(eid, job, handlers) {
      return new Promise<RunResult>((settle) => {
        if (!alive) {
          settle({ exit: 'failed', error: 'The sandbox process is not running' });
          return;
        }
        current = { eid, handlers, settle };
        post({ t: 'run', eid, job });
      });
    },
    stop(eid, reason, graceMs) {
      if (!current || current.eid !== eid || current.forced) return;
      current.forced = reason;
      post({ t: 'kill', eid });
      killTimer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    },
    async destroy() {
      if (alive) child.kill('SIGKILL');
      await exited;
    },
  };
  return self;
}
