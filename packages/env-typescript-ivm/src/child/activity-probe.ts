/** What the bootstrap's `probe()` answers (see sandbox-bootstrap.ts). */
export const PROBE = { finished: 0, waiting: 1, stalled: 2 } as const;

/** Options of {@link createActivityProbe}. */
export interface ActivityProbeOptions {
  /** Run the bootstrap's `probe()` as a task queued behind everything already queued. */
  readonly probe: () => Promise<number>;
  /** How long the program must stay idle, waiting on the host, before it counts as awaiting. */
  readonly settleMs: number;
  /**
   * Pokes within this many milliseconds share one probe (default 0: one per poke). A program
   * making a tool call every fraction of a millisecond would otherwise pay an isolate round trip
   * per answer for the probe alone.
   */
  readonly debounceMs?: number;
  /** The program started awaiting (true) or runs again (false). */
  readonly onAwaiting: (awaiting: boolean) => void;
  /** The program waits for a promise with nothing pending that could settle it. */
  readonly onStalled: () => void;
}

/** Watches one run: is its isolate computing, awaiting the host, or stuck for good. */
export interface ActivityProbe {
  /** Work was queued into the isolate (the program itself, an answer, a timer firing). */
  poke(): void;
  /** Stop probing and reporting (the run ended). */
  stop(): void;
}

/**
 * Create the probe of one run. After each poke it queues the bootstrap's `probe()` behind the
 * work; the answer arrives only once the isolate ran that work and drained its microtasks, so
 * "waiting" means the isolate is idle until the host delivers something. At most one probe is in
 * flight: a poke during one marks it stale and it is asked again. Awaiting is reported after
 * `settleMs` of such idleness (a program sleeping 1 ms at a time stays "running"), running again at
 * the next poke.
 */
export function createActivityProbe(options: ActivityProbeOptions): ActivityProbe {
  let inFlight = false;
  let stale = false;
  let stopped = false;
  let awaiting = false;
  let settle: NodeJS.Timeout | undefined;
  let debounce: NodeJS.Timeout | undefined;
  const debounceMs = options.debounceMs ?? 0;

  const report = (next: boolean) => {
    if (next === awaiting) return;
    awaiting = next;
    options.onAwaiting(next);
  };
  const ask = () => {
    inFlight = true;
    stale = false;
    options.probe().then(
      (answer) => {
        inFlight = false;
        if (stopped) return;
        if (stale) return ask();
        if (answer === PROBE.stalled) {
          stopped = true;
          options.onStalled();
        } else if (answer === PROBE.waiting) {
          settle = setTimeout(() => {
            if (!stopped && !inFlight) report(true);
          }, options.settleMs);
          settle.unref();
        }
      },
      // The isolate is gone: the run is ending anyway.
      () => {
        inFlight = false;
      },
    );
  };

  return {
    poke() {
      if (stopped) return;
      clearTimeout(settle);
      report(false);
      stale = true;
      if (inFlight || debounce) return;
      if (debounceMs <= 0) {
        ask();
        return;
      }
      debounce = setTimeout(() => {
        debounce = undefined;
        if (!stopped && !inFlight) ask();
      }, debounceMs);
    },
    stop() {
      stopped = true;
      clearTimeout(settle);
      clearTimeout(debounce);
    },
  };
}
