import { writeSync } from 'node:fs';
import type { DirectCallEvent } from '@cyrnel/sdk';
import { AUDIT_FD, type AuditLine } from '../shared/sandbox-protocol';

/** How long a direct call runs before its start is written on its own (see `AuditLog.started`). */
const START_AUDIT_MS = 5;

/** The audit lines of a child's direct tool calls, written to the audit pipe. */
export interface AuditLog {
  /**
   * A direct call of execution `eid` started. Its start is written once it has run for 5 ms, else
   * together with its end (one write per call): only a call younger than that can be missing
   * after a crash, and only if it had not answered yet. Returns the call's end, which writes it
   * (after its start when that is not written yet) and must run before the sandbox sees the answer.
   */
  started(eid: number, start: DirectCallEvent): (end: DirectCallEvent) => void;
  /** The lines written for `eid` so far, forgotten with this call (its `done` says how many). */
  take(eid: number): number | undefined;
}

/**
 * Write audit lines now, synchronously, to the audit pipe: a crash right after loses nothing,
 * and it costs one write(2), not an IPC message. A full pipe (the host reads it continuously)
 * is waited out.
 */
function writeLines(eid: number, events: readonly DirectCallEvent[]): void {
  let text = '';
  for (const event of events) text += `${JSON.stringify({ eid, event } satisfies AuditLine)}\n`;
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(AUDIT_FD, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/** Create the audit log of this sandbox child. */
export function createAuditLog(): AuditLog {
  /** Audit lines written per execution (its `done` says how many, so the host reads them first). */
  const audited = new Map<number, number>();
  const unwritten = new Map<DirectCallEvent, number>();
  let startTimer: NodeJS.Timeout | undefined;

  const audit = (eid: number, events: readonly DirectCallEvent[]) => {
    writeLines(eid, events);
    audited.set(eid, (audited.get(eid) ?? 0) + events.length);
  };
  const writeStarts = () => {
    startTimer = undefined;
    for (const [event, eid] of unwritten) audit(eid, [event]);
    unwritten.clear();
  };

  return {
    started(eid, start) {
      unwritten.set(start, eid);
      startTimer ??= setTimeout(writeStarts, START_AUDIT_MS);
      return (end) => {
        const pending = unwritten.delete(start);
        if (unwritten.size === 0 && startTimer) {
          clearTimeout(startTimer);
          startTimer = undefined;
        }
        audit(eid, pending ? [start, end] : [end]);
      };
    },
    take(eid) {
      const lines = audited.get(eid);
      audited.delete(eid);
      return lines;
    },
  };
}
