/** A one-shot timer whose clock can be stopped and restarted (see {@link createPausableTimer}). */
export interface PausableTimer {
  /**
   * Stop the clock (`true`) or restart it with the time that was left (`false`); a state, not a
   * count: holding twice, then releasing once, runs it again. Does nothing once fired or cleared.
   */
  hold(held: boolean): void;
  /** Milliseconds the clock has run so far (time held does not count). */
  elapsed(): number;
  /** Cancel it for good. */
  clear(): void;
}

/**
 * Start a timer that calls `fire` once its clock has run `ms` milliseconds: a deadline that time
 * spent waiting for a person's approval does not use up.
 *
 * @example
 * ```ts
 * const deadline = createPausableTimer(30_000, () => stop('timeout'));
 * deadline.hold(true); // the program waits for an approval
 * deadline.hold(false); // approved: it goes on with what was left
 * ```
 */
export function createPausableTimer(ms: number, fire: () => void): PausableTimer {
  let left = ms;
  let since = performance.now();
  let done = false;
  /** Set while the clock runs. */
  let timer: NodeJS.Timeout | undefined;
  const stopClock = () => {
    if (!timer) return;
    clearTimeout(timer);
    timer = undefined;
    left -= performance.now() - since;
  };
  const startClock = () => {
    since = performance.now();
    timer = setTimeout(
      () => {
        done = true;
        timer = undefined;
        left = 0;
        fire();
      },
      Math.max(0, left),
    );
  };
  startClock();
  return {
    hold(held) {
      if (done) return;
      if (held) stopClock();
      else if (!timer) startClock();
    },
    elapsed() {
      return ms - left + (timer ? performance.now() - since : 0);
    },
    clear() {
      stopClock();
      done = true;
    },
  };
}
