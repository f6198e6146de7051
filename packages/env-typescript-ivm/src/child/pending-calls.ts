import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import { type CallError, callError, toCallError } from '../shared/call-error';
import { type HostCallKind, isHostCallKind } from '../shared/host-call-kind';

/** Options of {@link createPendingCalls}. */
export interface PendingCallsOptions {
  /** Host calls and timers allowed in flight at once; more are refused with `too_many_calls`. */
  readonly max: number;
  /** Perform one host call for the sandbox (bindings). */
  readonly perform: (kind: HostCallKind, args: readonly unknown[]) => Promise<unknown>;
  /** Hand a settled call or fired timer back to the sandbox. */
  readonly deliver: (id: number, ok: boolean, value: unknown) => void;
}

/** The host side of one execution's asynchronous calls and timers. */
export interface PendingCalls {
  /** A call or timer (`sleep`) the sandbox started; arguments are untrusted. */
  start(kind: unknown, args: unknown, id: unknown): void;
  /** The sandbox cleared a timer: free the host timer at once. */
  clearTimer(id: unknown): void;
  /** Drop everything still pending (nothing is delivered afterwards); true when something was. */
  end(): boolean;
}

/** Track one execution's host calls and timers, bounded by `max`. */
export function createPendingCalls(options: PendingCallsOptions): PendingCalls {
  const calls = new Set<number>();
  const timers = new Map<number, NodeJS.Timeout>();
  // A clear can overtake the start of its timer (sync hook vs queued async hook); ids only grow.
  const clearedBeforeStart = new Set<number>();
  let lastStarted = 0;
  let ended = false;

  const tooMany = (): CallError =>
    callError('too_many_calls', `Too many pending calls and timers (limit ${options.max})`);
  const settle = (id: number, ok: boolean, value: unknown) => {
    if (ended || !calls.delete(id)) return;
    options.deliver(id, ok, value);
  };

  return {
    start(kind, args, id) {
      if (ended || typeof id !== 'number') return;
      lastStarted = Math.max(lastStarted, id);
      if (kind === 'sleep' && clearedBeforeStart.delete(id)) return;
      if (calls.size + timers.size >= options.max) {
        options.deliver(id, false, tooMany());
        return;
      }
      if (kind === 'sleep') {
        const ms = Math.min(Math.max(Number(Array.isArray(args) ? args[0] : 0) || 0, 0), MAX_TIMER_DELAY_MS);
        const timer = setTimeout(() => {
          timers.delete(id);
          if (!ended) options.deliver(id, true, null);
        }, ms);
        timers.set(id, timer);
        return;
      }
      if (!isHostCallKind(kind) || !Array.isArray(args)) {
        options.deliver(id, false, callError('invalid_request', `Unknown host call ${String(kind)}`));
        return;
      }
      calls.add(id);
      Promise.resolve()
        .then(() => options.perform(kind, args))
        .then(
          (value) => settle(id, true, value),
          (error: unknown) => settle(id, false, toCallError(error)),
        );
    },
    clearTimer(id) {
      if (typeof id !== 'number') return;
      const timer = timers.get(id);
      if (timer) {
        clearTimeout(timer);
        timers.delete(id);
      } else if (id > lastStarted) {
        clearedBeforeStart.add(id);
      }
    },
    end() {
      ended = true;
      const leftover = calls.size + timers.size > 0;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      calls.clear();
      clearedBeforeStart.clear();
      return leftover;
    },
  };
}
