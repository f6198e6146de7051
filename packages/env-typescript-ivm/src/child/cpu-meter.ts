import type ivm from 'isolated-vm';

/** The CPU time one execution spends in its isolate (which may have run others before it). */
export interface CpuMeter {
  /** Read the isolate's CPU time now, while it can be read (before the isolate is disposed). */
  sample(): void;
  /**
   * Milliseconds of CPU from the meter's creation to the last sample; undefined when no sample
   * after the start could be read (the isolate was disposed under the run: its memory limit).
   */
  elapsedMs(): number | undefined;
}

/**
 * Measure `isolate.cpuTime` from now on. A disposed isolate cannot be read: the runner samples
 * before every dispose of its own (a deadline, a kill, the end), so the last sample stands for the
 * whole run; an isolate disposed by isolated-vm itself (its memory limit) leaves it unknown.
 *
 * @example
 * ```ts
 * const cpu = createCpuMeter(isolate);
 * await script.run(context, { promise: true });
 * cpu.sample();
 * cpu.elapsedMs(); // 3.21
 * ```
 */
export function createCpuMeter(isolate: ivm.Isolate): CpuMeter {
  const read = (): bigint | undefined => {
    if (isolate.isDisposed) return undefined;
    try {
      return isolate.cpuTime;
    } catch {
      // Disposed meanwhile (out of memory).
      return undefined;
    }
  };
  const start = read();
  let last: bigint | undefined;
  return {
    sample() {
      last = read() ?? last;
    },
    elapsedMs() {
      if (start === undefined || last === undefined) return undefined;
      return Number(last - start) / 1e6;
    },
  };
}
