import type { ModuleLogger } from '@cyrnel/sdk';
import type { LiveProcess } from './live-process';
import type { ProcessResults, ProcessStorage } from './process-storage';

/** How long what a running process writes may stay in memory only: a crash loses at most this much. */
export const CHECKPOINT_MS = 1000;
/** stdout or stderr bytes that bring the next checkpoint forward (output waits for the timer). */
export const CHECKPOINT_BYTES = 64 * 1024;

type Part = keyof ProcessResults;

/** Per run: what changed since the last checkpoint, and the checkpoint under way. */
interface CheckpointState {
  readonly dirty: Set<Part>;
  bytes: number;
  timer: NodeJS.Timeout | undefined;
  /** A write is queued on the run and has not read the run yet: what changes now joins it. */
  queued: boolean;
}

/** The checkpoints of running processes' stdout, stderr and output. */
export interface RunCheckpoints {
  /** `run` wrote `bytes` to `part`: it is written within {@link CHECKPOINT_MS}. */
  note(run: LiveProcess, part: Part, bytes: number): void;
}

/**
 * Create the checkpoints: what a running process wrote reaches the storage within
 * {@link CHECKPOINT_MS}, or once {@link CHECKPOINT_BYTES} of text piled up, so a host killed mid-run
 * leaves it behind. One write per run per checkpoint, with only the parts that changed, queued
 * after the run's other writes (its end, which writes everything, comes after it).
 */
export function createRunCheckpoints(storage: ProcessStorage, logger: ModuleLogger): RunCheckpoints {
  const states = new WeakMap<LiveProcess, CheckpointState>();

  const write = (run: LiveProcess, state: CheckpointState) => {
    clearTimeout(state.timer);
    state.timer = undefined;
    if (state.queued || run.finished) return;
    state.queued = true;
    const id = run.record.id;
    run.persist(
      async () => {
        state.queued = false;
        // The end writes everything: nothing to do for a run that ended meanwhile.
        if (run.finished || state.dirty.size === 0) return;
        const parts: { -readonly [K in Part]?: ProcessResults[K] } = {};
        if (state.dirty.has('stdout')) parts.stdout = run.stdout.text();
        if (state.dirty.has('stderr')) parts.stderr = run.stderr.text();
        if (state.dirty.has('output')) parts.output = run.output.value();
        state.dirty.clear();
        state.bytes = 0;
        await storage.checkpoint(id, parts);
      },
      (error) => logger.error('process: checkpoint failed', { id, error: String(error) }),
    );
  };

  return {
    note(run, part, bytes) {
      if (run.finished) return;
      let state = states.get(run);
      if (!state) {
        state = { dirty: new Set(), bytes: 0, timer: undefined, queued: false };
        states.set(run, state);
      }
      state.dirty.add(part);
      if (part !== 'output') state.bytes += bytes;
      if (state.bytes >= CHECKPOINT_BYTES) return write(run, state);
      if (state.timer || state.queued) return;
      const armed = state;
      state.timer = setTimeout(() => write(run, armed), CHECKPOINT_MS);
      state.timer.unref?.();
    },
  };
}
