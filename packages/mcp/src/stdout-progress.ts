/** Options of {@link createStdoutProgress}. */
export interface StdoutProgressOptions {
  /** Longest line sent, in characters; a longer one is cut with `…`. */
  readonly maxLineChars: number;
  /** Least time between two notifications, in ms. */
  readonly intervalMs: number;
  /** Lines kept while they wait for their turn; beyond, the oldest are dropped and counted. */
  readonly maxQueuedLines: number;
}

/** Lines of a run's stdout turned into progress notifications, bounded and paced. */
export interface StdoutProgress {
  /** A chunk of stdout, as the run wrote it (lines may span chunks). */
  push(text: string): void;
  /** The output ended: its last partial line and what still waits go out in one last notification. */
  end(): void;
}

/** Default bounds: lines of up to 200 characters, at most 10 a second, 50 waiting. */
export const STDOUT_PROGRESS_DEFAULTS: StdoutProgressOptions = {
  maxLineChars: 200,
  intervalMs: 100,
  maxQueuedLines: 50,
};

const plural = (count: number) => `${count} line${count === 1 ? '' : 's'}`;

/**
 * Send each line of a run's stdout as a progress message: `progress` is the number of lines the
 * run has printed up to that one (so it only grows), `message` the line, cut at `maxLineChars`.
 * At most one notification goes out every `intervalMs`; lines that pile up beyond
 * `maxQueuedLines` are dropped, and the next message starts with how many (`[12 lines skipped]`).
 * A run printing a megabyte without a newline keeps only what the cut line needs.
 *
 * @example
 * ```ts
 * const progress = createStdoutProgress((progress, message) => notify({ progressToken, progress, message }));
 * progress.push('step 1\nstep');
 * progress.push(' 2\n');
 * progress.end();
 * ```
 */
export function createStdoutProgress(
  send: (progress: number, message: string) => void,
  options: StdoutProgressOptions = STDOUT_PROGRESS_DEFAULTS,
): StdoutProgress {
  const { maxLineChars, intervalMs, maxQueuedLines } = options;
  const queue: string[] = [];
  let partial = '';
  let printed = 0;
  let skipped = 0;
  let lastSent = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;

  const cut = (line: string) => (line.length <= maxLineChars ? line : `${line.slice(0, maxLineChars)}…`);
  const sendNext = (progress: number, line: string) => {
    const prefix = skipped > 0 ? `[${plural(skipped)} skipped] ` : '';
    skipped = 0;
    lastSent = performance.now();
    send(progress, prefix + line);
  };
  const turn = () => {
    timer = undefined;
    const line = queue.shift();
    if (line === undefined) return;
    sendNext(printed - queue.length, line);
    if (queue.length > 0) schedule();
  };
  const schedule = () => {
    if (timer !== undefined || ended) return;
    timer = setTimeout(turn, Math.max(0, lastSent + intervalMs - performance.now()));
  };
  const line = (text: string) => {
    printed += 1;
    queue.push(cut(text.endsWith('\r') ? text.slice(0, -1) : text));
    if (queue.length > maxQueuedLines) {
      queue.shift();
      skipped += 1;
    }
    schedule();
  };

  return {
    push(text) {
      if (ended) return;
      const parts = (partial + text).split('\n');
      partial = (parts.pop() ?? '').slice(0, maxLineChars + 1);
      for (const part of parts) line(part);
    },
    end() {
      if (ended) return;
      if (partial !== '') line(partial);
      partial = '';
      ended = true;
      clearTimeout(timer);
      timer = undefined;
      const last = queue.pop();
      skipped += queue.length;
      queue.length = 0;
      if (last !== undefined) sendNext(printed, last);
    },
  };
}
