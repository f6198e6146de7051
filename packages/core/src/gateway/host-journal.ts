import { join } from 'node:path';
import { type JournalWriter, openJournalWriter } from './journal-writer';

/**
 * The host thread's own call journal, beside its egress workers' (`h-<n>.jsonl` in their
 * directory): a call of the gate's path (a tool that is not portable, such as an `mcp` server's,
 * made by the host's own thread) is journaled before it leaves instead of waiting for its start's
 * write, which then goes with what its run writes next.
 */
export interface HostJournal {
  /**
   * Journal the start of a call the host's thread is about to make. Answers the function to call
   * with the promise of that start's write (settled once it is in the store, or its run's end took
   * it), or undefined when the line could not be written: the call must then wait for its start's
   * write before it leaves.
   */
  journal(
    eid: number,
    serviceId: string,
    toolId: string,
    startedMs: number,
  ): ((stored: Promise<unknown>) => void) | undefined;
  close(): void;
}

/** Journaled starts the host waits to see stored, at most, before it forgets the oldest settled ones. */
const COMPACT_AFTER = 1024;

/**
 * Create the host thread's journal in `dir` (the egress workers' journal directory); its file is
 * opened by the first call journaled, `name` naming it (`h-<n>.jsonl`, which the fold at start
 * reads as it reads the workers'). A closed segment is removed once every start in it and before
 * it is stored, whatever order the runs store their starts in.
 *
 * @example
 * ```ts
 * const journal = createHostJournal(journalDir, 'h-1.jsonl');
 * const journaled = journal.journal(run.record.id, 'memory', 'read_graph', now);
 * const call = records.open(run, 'memory', 'read_graph', now, decision, undefined, journaled !== undefined);
 * if (journaled) journaled(call.started);
 * else await call.started;
 * ```
 */
export function createHostJournal(dir: string, name: string): HostJournal {
  let writer: JournalWriter | undefined;
  let failed = false;
  /** Lines journaled in order, whether their start is stored; the settled head is dropped. */
  let lines: { readonly q: number; done: boolean }[] = [];
  let head = 0;

  const settle = (line: { readonly q: number; done: boolean }) => {
    line.done = true;
    let last: number | undefined;
    while (head < lines.length && lines[head]?.done) last = (lines[head++] as { q: number }).q;
    if (head >= COMPACT_AFTER || head === lines.length) {
      lines = lines.slice(head);
      head = 0;
    }
    if (last !== undefined && writer?.waiting) writer.stored(last);
  };

  return {
    journal(eid, serviceId, toolId, startedMs) {
      if (failed) return undefined;
      try {
        writer ??= openJournalWriter(join(dir, name));
      } catch {
        // The directory is gone or unwritable: every start waits for the store from now on.
        failed = true;
        return undefined;
      }
      const q = writer.append({ p: eid, s: serviceId, t: toolId, at: startedMs, id: 0 });
      if (q === undefined) return undefined;
      const line = { q, done: false };
      lines.push(line);
      const done = () => settle(line);
      return (stored) => {
        stored.then(done, done);
      };
    },
    close() {
      // Nothing is journaled after the gateway closed: a start then waits for the store.
      failed = true;
      writer?.close();
      writer = undefined;
    },
  };
}
