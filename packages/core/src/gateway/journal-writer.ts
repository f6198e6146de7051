import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import type { CallJournalLine } from './gateway-protocol';

/**
 * A journal file this large is closed and the next one opened (`<file>.<n>`); a closed one is
 * removed once every start in it is stored.
 */
const SEGMENT_BYTES = 256 * 1024;

/** One thread's call journal: its lines in order, in segments removed once stored. */
export interface JournalWriter {
  /**
   * Append the start of a call about to leave, with one `write`; answers its line number (`q`,
   * increasing from 1), or undefined when it could not be written (a full disk: the call must then
   * wait for its start's write in the store).
   */
  append(line: Omit<CallJournalLine, 'q'>): number | undefined;
  /** Every start up to line `q` is stored: the closed segments it covers are removed. */
  stored(q: number): void;
  /** Whether a closed segment waits for {@link stored} (until one does, nobody needs to say it). */
  readonly waiting: boolean;
  close(): void;
}

/**
 * Open a call journal at `file` (created private, appended to). A file left behind by a crash is
 * read and removed when the host starts again (`foldCallJournals`), where lines already stored
 * are recognised; so removing a closed segment only keeps the journal small.
 *
 * @example
 * ```ts
 * const journal = openJournalWriter(join(dir, 'w0-1.jsonl'));
 * const q = journal.append({ p: 7, s: 'github', t: 'repos_get', at: Date.now(), id: 1 });
 * if (q === undefined) await start.stored; // no line: wait for the store instead
 * // … once every start up to q is in the store:
 * journal.stored(q);
 * ```
 */
export function openJournalWriter(file: string): JournalWriter {
  /** Segment `n` of the journal: `file`, then `file.1`, `file.2`, … */
  const segmentPath = (n: number) => (n === 0 ? file : `${file}.${n}`);
  let fd = openSync(file, 'a', 0o600);
  /** The segment written now, and the closed ones with their last line (removed once it is stored). */
  let segment = 0;
  let closed: { readonly segment: number; readonly last: number }[] = [];
  let line = 0;
  let size = 0;
  return {
    append(entry) {
      const q = line + 1;
      const text = `${JSON.stringify({ q, ...entry })}\n`;
      try {
        if (size >= SEGMENT_BYTES) {
          const opened = openSync(segmentPath(segment + 1), 'a', 0o600);
          closeSync(fd);
          closed.push({ segment, last: line });
          fd = opened;
          segment++;
          size = 0;
        }
        size += writeSync(fd, text);
      } catch {
        return undefined;
      }
      line = q;
      return q;
    },
    stored(q) {
      // A closed file goes once its last line is stored (a file left behind is folded at the next
      // start, where stored lines are recognised).
      closed = closed.filter((done) => {
        if (done.last > q) return true;
        rmSync(segmentPath(done.segment), { force: true });
        return false;
      });
    },
    get waiting() {
      return closed.length > 0;
    },
    close() {
      closeSync(fd);
    },
  };
}
