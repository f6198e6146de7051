import { MAX_JSON_DEPTH } from '@cyrnel/sdk';
import type ivm from 'isolated-vm';
import { callError } from '../shared/call-error';
import type { HostCallKind } from '../shared/host-call-kind';
import { lazyPackage } from '../shared/lazy-package';
import { MAX_PENDING_CALLS } from '../shared/max-pending-calls';
import { createPausableTimer } from '../shared/pausable-timer';
import type { RunJob, RunResult } from '../shared/run-job';
import { sucrase, transpile, WRAPPER_LINE_OFFSET } from '../shared/transpile';
import { createActivityProbe } from './activity-probe';
import { type CpuMeter, createCpuMeter } from './cpu-meter';
import { JsonText } from './gateway-client';
import { createOutputBudget, type OutputBudget } from './output-budget';
import { createOutputFlush, type OutputFlush } from './output-flush';
import { createPendingCalls, type PendingCalls } from './pending-calls';
import { type PreparedContext, prepareContext, releaseContext } from './prepared-context';
import { bootstrapSource } from './sandbox-bootstrap';

/** Where a runner sends what the sandbox does. */
export interface RunnerHooks {
  /** Perform a host call; reject with an error carrying `status`, `code` and `reason` to fail it in the sandbox. */
  call(kind: HostCallKind, args: readonly unknown[]): Promise<unknown>;
  /** Forward (already capped) stdout or stderr text. */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** Forward the merge of the output patches since the last one: a JSON array of `[key, value]` entries. */
  output(json: string): void;
  /** The program started awaiting the host (true: its isolate is idle) or runs again (false). */
  activity?(awaiting: boolean): void;
}

/** Runs executions one at a time in a warm isolate, replacing it after any abnormal end. */
export interface IsolateRunner {
  /** Run one execution to its end. */
  run(job: RunJob, hooks: RunnerHooks): Promise<RunResult>;
  /** Cancel the running execution (it ends `canceled`). */
  kill(): void;
  /**
   * Stop (`true`) or restart (`false`) the running execution's deadline while the host holds one
   * of its calls for a person's approval. The clock stops only while the program awaits: time it
   * spends computing meanwhile still counts, so holding a call never lets a loop run unbounded.
   */
  pause(paused: boolean): void;
  /**
   * Make the next execution's context now, while nothing runs here: a fresh context with the
   * runtime installed, its hooks bound only when that execution starts. Creating a context is
   * most of a trivial run's time in the sandbox (≈ 0.4–0.6 ms), so a runner warmed between
   * executions starts the next one without it. Does nothing while an execution runs.
   *
   * @returns whether the next execution's context is ready (false while one runs, or when its
   * isolate could not be made).
   */
  warm(): boolean;
  /** Release the isolate. */
  dispose(): void;
}

/** Options of {@link createIsolateRunner}. */
export interface IsolateRunnerOptions {
  readonly memoryLimitMb: number;
  /** Pending host calls and timers allowed per execution before further ones reject. */
  readonly maxPendingCalls?: number;
  /** Called when V8 lost control of an isolate (isolated-vm advises ending the process). */
  readonly onCatastrophicError?: (message: string) => void;
}

/** Idle time after which a program waiting on the host counts as awaiting (holds no CPU). */
const AWAIT_SETTLE_MS = 10;
/** Answers delivered within this long share one activity probe (see `ActivityProbeOptions`). */
const PROBE_DEBOUNCE_MS = 2;

/** Why a run ended early: a deadline, a kill, or a wait that nothing can end. */
type StopReason = 'timeout' | 'canceled' | 'deadlock';

/** The error of a program ended by the deadlock rule. */
export const DEADLOCK_ERROR =
  'The program is waiting for a promise that nothing can settle (no tool call, timer or other work is pending); it was ended instead of waiting for its timeout';

function stoppedResult(reason: StopReason): RunResult {
  return reason === 'deadlock' ? { exit: 'failed', error: DEADLOCK_ERROR } : { exit: reason };
}

function describeThrown(error: unknown): string {
  if (!(error instanceof Error)) return `Uncaught ${String(error)}`;
  const where = /process\.ts:(\d+):(\d+)/.exec(error.stack ?? '');
  const suffix =
    where && !error.message.includes('process.ts') ? ` (line ${where[1]}, column ${where[2]})` : '';
  return `${error.name}: ${error.message}${suffix}`;
}

/** How a program that threw (or whose isolate was disposed under it) ended. */
function failedResult(error: unknown, disposed: boolean, memoryLimitMb: number): RunResult {
  const message = error instanceof Error ? error.message : String(error);
  if (disposed || /memory limit/i.test(message)) {
    return {
      exit: 'failed',
      error: `The execution hit the memory limit of ${memoryLimitMb} MB and was stopped`,
    };
  }
  const described = describeThrown(error);
  // Allocation failures surface as catchable RangeErrors; uncaught, they mean the limit was hit.
  if (/Array buffer allocation failed|Invalid (string|array|typed array) length/.test(described)) {
    return { exit: 'failed', error: `${described}: the memory limit of ${memoryLimitMb} MB was hit` };
  }
  return { exit: 'failed', error: described };
}

/**
 * The bootstrap's blocking hook (`__cyrnelSync(kind, payload)`): console lines and output patches
 * counted against the run's budget before they are forwarded (so a full stream or output answers
 * at once and gives the program backpressure), and cleared timers freed.
 */
function answerSyncCall(
  budget: OutputBudget,
  calls: PendingCalls,
  hooks: RunnerHooks,
  output: OutputFlush,
  ended: () => boolean,
): (kind: string, payload: unknown) => unknown {
  return (kind, payload) => {
    if (ended()) return kind === 'output' ? 'The execution has ended' : false;
    if (kind === 'room') return budget.room(payload === 'stderr' ? 'stderr' : 'stdout');
    if (kind === 'stdout' || kind === 'stderr') {
      const text = budget.take(kind, String(payload));
      if (text !== undefined) hooks.write(kind, text);
      return budget.open(kind);
    }
    if (kind === 'output' && Array.isArray(payload)) {
      const entries = payload as [string, string][];
      const refused = budget.mergeOutput(entries);
      if (refused) return refused.error;
      output.add(entries);
      return '';
    }
    if (kind === 'clearTimer') {
      calls.clearTimer(payload);
      return true;
    }
    return 'Unknown host call';
  };
}

/**
 * Console lines and output patches an execution may send without waiting for the host (the
 * bootstrap's `post`); later ones wait, which bounds what a logging loop can queue here.
 */
const ASYNC_WRITES_PER_RUN = 1024;
/** How long the end of a run waits for its writes sent without waiting (they are queued ahead of it). */
const SENT_WRITES_WAIT_MS = 1000;

function isWriteKind(kind: unknown): kind is 'stdout' | 'stderr' | 'output' {
  return kind === 'stdout' || kind === 'stderr' || kind === 'output';
}

/**
 * Wait until every write the program sent without waiting has been taken, so none is lost to the
 * run's end. isolated-vm hands them over in the order they were made, before the run's end, so this
 * normally finds them all at once; it is what makes that order not matter.
 */
async function takeSentWrites(prepared: PreparedContext, received: () => number): Promise<void> {
  let sent: number;
  try {
    sent = prepared.sent.applySync(undefined, [], { result: { copy: true } }) as number;
  } catch {
    // The isolate was disposed (a deadline, a kill, its memory limit): the run ends as it is.
    return;
  }
  const until = performance.now() + SENT_WRITES_WAIT_MS;
  while (received() < sent && performance.now() < until) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A tool result that cannot cross into the isolate (structured clone refused it). */
const UNCOPYABLE = callError('upstream_failed', 'The tool result could not be copied into the sandbox');

/** isolated-vm, loaded by the first runner: a sandbox process needs it, the server never does. */
const isolatedVm = lazyPackage<typeof import('isolated-vm')>('isolated-vm');

/** Create a runner holding one isolate of `memoryLimitMb`. */
export function createIsolateRunner(options: IsolateRunnerOptions): IsolateRunner {
  // Loaded now, not by the first run: a sandbox process is ready when its runner is.
  const ivm = isolatedVm();
  sucrase();
  const source = bootstrapSource(options.maxPendingCalls ?? MAX_PENDING_CALLS, MAX_JSON_DEPTH);
  let isolate: ivm.Isolate | undefined;
  let bootstrap: ivm.Script | undefined;
  let stop: ((reason: StopReason) => void) | undefined;
  let pause: ((paused: boolean) => void) | undefined;
  /** The next execution's context, made by `warm` (of the current isolate only). */
  let ready: PreparedContext | undefined;
  let running = false;

  const newIsolate = () =>
    new ivm.Isolate({
      memoryLimit: options.memoryLimitMb,
      ...(options.onCatastrophicError ? { onCatastrophicError: options.onCatastrophicError } : {}),
    });
  const fresh = async () => {
    if (!isolate || isolate.isDisposed) {
      isolate = newIsolate();
      bootstrap = await isolate.compileScript(source, { filename: 'cyrnel-runtime.js' });
    }
    return { isolate, bootstrap: bootstrap as ivm.Script };
  };
  const retire = () => {
    if (ready) releaseContext(ready);
    ready = undefined;
    if (isolate && !isolate.isDisposed) isolate.dispose();
    isolate = undefined;
  };
  /** The context made ahead for this isolate, or a new one. */
  const contextFor = (iso: ivm.Isolate, boot: ivm.Script): PreparedContext => {
    const made = ready;
    ready = undefined;
    if (made && made.isolate === iso && !iso.isDisposed) return made;
    if (made) releaseContext(made);
    return prepareContext(ivm, iso, boot);
  };

  /** One execution of transpiled `js`, from its context to its result. */
  const runCompiled = async (job: RunJob, js: string, hooks: RunnerHooks): Promise<RunResult> => {
    let reason: StopReason | undefined;
    let current: ivm.Isolate | undefined;
    let cpu: CpuMeter | undefined;
    // Armed before any await so a kill or deadline during isolate start-up is not lost.
    stop = (why) => {
      reason ??= why;
      // Its CPU time can no longer be read once it is disposed.
      cpu?.sample();
      if (current && !current.isDisposed) current.dispose();
    };
    const deadline = createPausableTimer(job.timeoutMs, () => stop?.('timeout'));
    let paused = false;
    let awaiting = false;
    const holdDeadline = () => deadline.hold(paused && awaiting);
    pause = (value) => {
      paused = value;
      holdDeadline();
    };
    const { isolate: iso, bootstrap: boot } = await fresh();
    current = iso;
    if (reason) {
      deadline.clear();
      stop = undefined;
      pause = undefined;
      retire();
      return stoppedResult(reason);
    }
    cpu = createCpuMeter(iso);
    const budget = createOutputBudget(job);
    const output = createOutputFlush((json) => hooks.output(json));
    let ended = false;
    /** Writes sent without waiting that arrived here. */
    let received = 0;
    let prepared: PreparedContext | undefined;
    let script: ivm.Script | undefined;
    const activity = createActivityProbe({
      probe: async () => (prepared ? prepared.probe.apply(undefined, [], { result: { copy: true } }) : 0),
      settleMs: AWAIT_SETTLE_MS,
      debounceMs: PROBE_DEBOUNCE_MS,
      onAwaiting: (now) => {
        awaiting = now;
        holdDeadline();
        hooks.activity?.(now);
      },
      onStalled: () => stop?.('deadlock'),
    });
    const deliverNow = (id: number, ok: boolean, value: unknown) => {
      // A gateway answer is parsed inside the isolate (its heap, its limit), not here.
      const args: [number, boolean, unknown, number?] =
        value instanceof JsonText ? [id, ok, value.text, 1] : [id, ok, value];
      prepared?.deliver.applyIgnored(undefined, args, { arguments: { copy: true } });
      activity.poke();
    };
    const calls = createPendingCalls({
      max: options.maxPendingCalls ?? MAX_PENDING_CALLS,
      perform: (kind, args) => {
        // What the code reported before a tool call reaches the host before the call leaves:
        // a call that never answers (or a crash meanwhile) keeps it, in order.
        if (kind === 'invoke') output.flush();
        return hooks.call(kind, args);
      },
      deliver: (id, ok, value) => {
        try {
          deliverNow(id, ok, value);
        } catch {
          // Structured clone refused the value; when this fails too, the isolate is gone.
          try {
            deliverNow(id, false, UNCOPYABLE);
          } catch {}
        }
      },
    });
    let result: RunResult;
    try {
      // Set-up runs synchronously; only the program runs asynchronously, so the deadline and a
      // kill can still dispose the isolate under it.
      prepared = contextFor(iso, boot);
      const write = answerSyncCall(budget, calls, hooks, output, () => ended);
      prepared.slot.sync = write;
      prepared.slot.async = (kind, args, id) => {
        if (id !== 0) return calls.start(kind, args, id);
        // A console line or output patch the bootstrap sent without waiting: counted as exactly
        // as a synchronous one (the bootstrap sends only what surely fits), and no more of them
        // than it was allowed, whatever an isolate sends.
        if (received >= ASYNC_WRITES_PER_RUN || !isWriteKind(kind)) return;
        received++;
        write(kind, args);
      };
      prepared.begin.applySync(undefined, [
        job.stdoutCapBytes,
        job.stderrCapBytes,
        job.outputCapBytes,
        ASYNC_WRITES_PER_RUN,
      ]);
      script = iso.compileScriptSync(js, { filename: 'process.ts', lineOffset: -WRAPPER_LINE_OFFSET });
      const program = script.run(prepared.context, { promise: true });
      activity.poke();
      await program;
      result = reason ? stoppedResult(reason) : { exit: 'success' };
    } catch (error) {
      result = reason ? stoppedResult(reason) : failedResult(error, iso.isDisposed, options.memoryLimitMb);
    } finally {
      if (prepared) await takeSentWrites(prepared, () => received);
      cpu.sample();
      ended = true;
      // What the program output reaches the host before its end does.
      output.flush();
      stop = undefined;
      pause = undefined;
      activity.stop();
      deadline.clear();
      // Calls or timers still pending hold promises and closures of the finished program: drop
      // them with the isolate (the bootstrap already refuses late answers). Nothing pending: reuse.
      const leftover = calls.end();
      if (prepared) releaseContext(prepared);
      script?.release();
      if (!iso.isDisposed) {
        if (reason || leftover) retire();
        else {
          const heap = iso.getHeapStatisticsSync();
          if (heap.used_heap_size > heap.heap_size_limit / 2) retire();
        }
      } else {
        retire();
      }
    }
    const cpuMs = cpu.elapsedMs();
    return cpuMs === undefined ? result : { ...result, cpuMs };
  };

  return {
    async run(job, hooks) {
      const compiled = transpile(job.code);
      if (!compiled.ok) return { exit: 'failed', error: compiled.message };
      running = true;
      try {
        return await runCompiled(job, compiled.js, hooks);
      } finally {
        running = false;
      }
    },
    warm() {
      if (running) return false;
      if (ready && ready.isolate === isolate && !ready.isolate.isDisposed) return true;
      try {
        if (!isolate || isolate.isDisposed) {
          isolate = newIsolate();
          bootstrap = isolate.compileScriptSync(source, { filename: 'cyrnel-runtime.js' });
        }
        ready = prepareContext(ivm, isolate, bootstrap as ivm.Script);
        return true;
      } catch {
        // The next execution makes its own isolate and context, as without warming.
        retire();
        return false;
      }
    },
    kill() {
      stop?.('canceled');
    },
    pause(paused) {
      pause?.(paused);
    },
    dispose() {
      retire();
    },
  };
}
