import { rmSync } from 'node:fs';
import { CyrnelError } from '@cyrnel/sdk';
import { journalFiles, readCallJournal } from './call-journal';
import type { AuditEvent, AuditVerdict, FromWorker, ToWorker, TracedVerdict } from './gateway-protocol';

/** The audit hook a worker's calls are reported to (`EgressAudit`). */
export type AuditHook = (
  eid: number,
  event: AuditEvent,
) => AuditVerdict | TracedVerdict | Promise<AuditVerdict | TracedVerdict>;

/** The main thread's side of one worker thread's audit: its open calls and its journal. */
export interface ThreadAudits {
  /** A start that waits for its answer (`audit`). */
  start(message: FromWorker & { t: 'audit' }): void;
  /** A batch of kept starts and ends (`audits`), each recorded in this turn. */
  batch(message: FromWorker & { t: 'audits' }): void;
  /** Audited calls open now. */
  open(): number;
  /**
   * The thread stopped: its open calls end as crashed, and its journal's lines the main thread was
   * never sent (their requests may have left) are recorded, and ended so; then the file goes. Once.
   */
  stopped(): void;
}

/**
 * Create the audit of one worker thread (one per thread started: a thread's journal file and line
 * numbers are its own). `post` reaches that thread only.
 *
 * @example
 * ```ts
 * const audits = createThreadAudits(hook, journalFile, (message) => worker.postMessage(message));
 * worker.on('message', (m) => m.t === 'audits' && audits.batch(m));
 * worker.once('exit', () => audits.stopped());
 * ```
 */
export function createThreadAudits(
  audit: AuditHook,
  journal: string | undefined,
  post: (message: ToWorker) => void,
): ThreadAudits {
  /** Audited calls open: call id → execution. */
  const open = new Map<number, number>();
  /** The last journal line the main thread was sent. */
  let seen = 0;
  /** Journaled starts acknowledged in order: `journaled` only once all before it are stored. */
  let storedChain: Promise<unknown> = Promise.resolve();
  let stopped = false;

  const report = (eid: number, event: AuditEvent): Promise<unknown> => {
    try {
      const done = Promise.resolve(audit(eid, event));
      done.catch(() => undefined);
      return done;
    } catch {
      // The audit's failure is the run's to report, never the worker's.
      return Promise.resolve();
    }
  };

  return {
    start(message) {
      const { event, eid } = message;
      // The start is stored before the answer lets the request leave; a refusal or a failed
      // write keeps it from leaving.
      Promise.resolve()
        .then(() => audit(eid, event))
        .then(
          (answer) => {
            const ok = typeof answer === 'object' ? answer.ok : answer;
            if (ok === true) open.set(event.id, eid);
            const trace = typeof answer === 'object' ? answer.trace : undefined;
            const keep = typeof answer === 'object' && answer.keep === true;
            post({
              t: 'audited',
              id: message.id,
              ok,
              ...(trace ? { trace } : {}),
              ...(keep ? { keep } : {}),
            });
          },
          () => post({ t: 'audited', id: message.id, ok: false }),
        );
    },
    batch(message) {
      // Each recorded in this turn (the hook opens or completes the call's record synchronously):
      // a `sync` answered after this message finds them recorded.
      const starts: Promise<unknown>[] = [];
      for (const { eid, event } of message.events) {
        if (event.kind === 'start') {
          open.set(event.id, eid);
          if (event.kept !== undefined) seen = event.kept;
          starts.push(report(eid, event));
        } else {
          open.delete(event.id);
          void report(eid, event);
        }
      }
      const { q } = message;
      if (q === undefined) return;
      storedChain = storedChain
        .then(() => Promise.allSettled(starts))
        .then(() => {
          if (!stopped) post({ t: 'journaled', q });
        });
    },
    open: () => open.size,
    stopped() {
      if (stopped) return;
      stopped = true;
      const crashed = workerStopped();
      for (const [id, eid] of open) void report(eid, crashedEnd(id, crashed));
      open.clear();
      if (journal === undefined) return;
      const files = journalFiles(journal);
      // In the order they were written, across the journal's segments.
      const lines = files.flatMap((file) => readCallJournal(file)).sort((a, b) => a.q - b.q);
      for (const line of lines) {
        if (line.q <= seen) continue;
        const start: AuditEvent = {
          kind: 'start',
          id: line.id,
          serviceId: line.s,
          toolId: line.t,
          startedAt: line.at,
          kept: line.q,
        };
        void report(line.p, start);
        void report(line.p, crashedEnd(line.id, crashed));
      }
      for (const file of files) rmSync(file, { force: true });
    },
  };
}

/** What a call or an answer owed by a worker thread that stopped fails with. */
export function workerStopped(): CyrnelError {
  return new CyrnelError('upstream_crashed', 'the egress worker making the call stopped');
}

/** The end of call `id` whose worker stopped. */
function crashedEnd(id: number, crashed: CyrnelError): AuditEvent {
  return {
    kind: 'end',
    id,
    ok: false,
    errorCode: crashed.code,
    errorReason: crashed.reason,
    durationMs: 0,
    status: null,
    resultBytes: 0,
  };
}
