import type { ModuleLogger } from '@cyrnel/sdk';
import type { LiveProcess } from './live-process';
import type { ProcessStorage } from './process-storage';

/**
 * How long the `running` update of a run is held back: a run that ends sooner is written once,
 * at its end (a trivial process takes about a millisecond). Reads never see the difference: the
 * run in memory answers them, and `list` writes what is held back before it reads the store.
 */
export const RUNNING_WRITE_DELAY_MS = 50;

/** The writes of a run's record, kept in order on the run, the start held back. */
export interface RunWrites {
  /** Persist a change of the record of a run (`deferred`: hold it back, see {@link RUNNING_WRITE_DELAY_MS}). */
  persistChange(
    run: LiveProcess,
    change: Partial<LiveProcess['record']>,
    options?: { readonly deferred?: boolean },
  ): void;
  /** Write a run's held-back change now (before reading the store alone). */
  flushDeferred(run: LiveProcess): void;
  /** What a failed write of run `id` does: it is logged (the run in memory stays the truth). */
  onWriteError(id: number): (error: unknown) => void;
}

/** Create the writes of runs' records. */
export function createRunWrites(storage: ProcessStorage, logger: ModuleLogger, now: () => Date): RunWrites {
  const onWriteError = (id: number) => (error: unknown) => {
    logger.error('process: storage write failed', { id, error: String(error) });
  };

  const flushDeferred = (run: LiveProcess): void => {
    const change = run.deferred;
    if (!change) return;
    run.deferred = undefined;
    clearTimeout(run.deferredTimer);
    run.persist(() => storage.update(run.record.id, change), onWriteError(run.record.id));
  };

  const persistChange: RunWrites['persistChange'] = (run, change, options = {}) => {
    const updatedAt = now().toISOString();
    run.record = { ...run.record, ...change, updatedAt };
    const stored = { ...change, updatedAt };
    if (options.deferred) {
      // A run that ends within RUNNING_WRITE_DELAY_MS is written once, at its end.
      run.deferred = { ...run.deferred, ...stored };
      clearTimeout(run.deferredTimer);
      run.deferredTimer = setTimeout(() => flushDeferred(run), RUNNING_WRITE_DELAY_MS);
    } else {
      flushDeferred(run);
      run.persist(() => storage.update(run.record.id, stored), onWriteError(run.record.id));
    }
    if (change.state !== undefined) {
      run.emit({ type: 'state', data: { state: run.record.state, exitState: run.record.exitState } });
    }
  };

  return { persistChange, flushDeferred, onWriteError };
}
