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

/** The bootstrap's `deliver(id, ok, value, json)` (`json` 1: value is JSON text to parse there). */
type Deliver = (id: number, ok: boolean, value: unknown, json?: number) => void;

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

  const fresh = async () => {
    if (!isolate || isolate.isDisposed) {
      isolate = new ivm.Isolate({
        memoryLimit: options.memoryLimitMb,
        ...(options.onCatastrophicError ? { onCatastrophicError: options.onCatastrophicError } : {}),
      });
      bootstrap = await isolate.compileScript(source, { filename: 'cyrnel-runtime.js' });
    }
    return { isolate, bootstrap: bootstrap as ivm.Script };
  };
  const retire = () => {
    if (isolate && !isolate.isDisposed) isolate.dispose();
    isolate = undefined;
  };

  return {
    async run(job, hooks) {
      const compiled = transpile(job.code);
      if (!compiled.ok) return { exit: 'failed', error: compiled.message };
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
      let context: ivm.Context | undefined;
      let script: ivm.Script | undefined;
      let entry: ivm.Reference<readonly [Deliver, () => number]> | undefined;
      let deliverRef: ivm.Reference<Deliver> | undefined;
      let probeRef: ivm.Reference<() => number> | undefined;
      const activity = createActivityProbe({
        probe: async () => (probeRef ? probeRef.apply(undefined, [], { result: { copy: true } }) : 0),
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
        deliverRef?.applyIgnored(undefined, args, { arguments: { copy: true } });
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
      const asyncHook = new ivm.Callback(
        (kind: unknown, args: unknown, id: unknown) => calls.start(kind, args, id),
        { ignored: true },
      );
      const syncHook = new ivm.Callback(answerSyncCall(budget, calls, hooks, output, () => ended));
      let result: RunResult;
      try {
        // Set-up runs synchronously (each async isolated-vm call is a hop to the isolate's thread:
        // ≈ 0.4 ms of a trivial run); only the program runs asynchronously, so the deadline and a
        // kill can still dispose the isolate under it.
        context = iso.createContextSync();
        context.global.setSync('__cyrnelSync', syncHook);
        context.global.setSync('__cyrnelAsync', asyncHook);
        entry = boot.runSync(context, { reference: true });
        deliverRef = entry.getSync(0, { reference: true });
        probeRef = entry.getSync(1, { reference: true });
        script = iso.compileScriptSync(compiled.js, {
          filename: 'process.ts',
          lineOffset: -WRAPPER_LINE_OFFSET,
        });
        const program = script.run(context, { promise: true });
        activity.poke();
        await program;
        result = reason ? stoppedResult(reason) : { exit: 'success' };
      } catch (error) {
        result = reason ? stoppedResult(reason) : failedResult(error, iso.isDisposed, options.memoryLimitMb);
      } finally {
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
        deliverRef?.release();
        probeRef?.release();
        entry?.release();
        script?.release();
        if (!iso.isDisposed) {
          context?.release();
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
