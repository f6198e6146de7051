import { randomId } from '../telemetry/relay-tracer';
import { carrierOfSpan, spanContextOf, type TraceCarrier } from '../telemetry/trace-carrier';
import { type AuditEvent, type AuditedEvent, type FromWorker, MAX_KEPT_TOOLS } from './gateway-protocol';
import { openJournalWriter } from './journal-writer';

/** Longest a start or an end waits in a worker before its batch goes to the main thread. */
export const AUDITS_FLUSH_MS = 2;
/** Events in one batch at most: a larger one goes at once. */
const MAX_BATCH = 512;
/**
 * A decision kept for an execution's calls of one tool; on a traced run, the first call's span as a
 * carrier: a kept call's span is of the same trace, with an id the worker draws.
 */
export interface KeptDecision {
  readonly trace?: TraceCarrier;
}

/** A worker's side of the audit, apart from the starts that wait for the main thread. */
export interface WorkerAudits {
  /** The decision the main thread said to keep on `toolId` for execution `eid`, if it did. */
  kept(eid: number, serviceId: string, toolId: string): KeptDecision | undefined;
  /** The main thread said to keep it (ignored without a journal). */
  keep(eid: number, serviceId: string, toolId: string, decision: KeptDecision): void;
  /**
   * Journal a start made under a kept decision and queue it for the main thread; false when the
   * line could not be written (the start must then wait for the main thread).
   */
  journal(eid: number, event: AuditEvent & { kind: 'start' }): boolean;
  /** Queue an end. */
  ended(eid: number, event: AuditEvent & { kind: 'end' }): void;
  /** Send what is queued now (before any message that must come after it). */
  flush(): void;
  /** The main thread stored every journaled start up to line `q`. */
  stored(q: number): void;
  /** A catalog change: no decision is kept. */
  changed(): void;
  /** Execution `eid` ended: its decisions are dropped. */
  revoke(eid: number): void;
  close(): void;
}

/**
 * Create a worker's audits. A start under a kept decision (an `allow` the main thread said holds
 * for the execution's later calls of a tool until the next catalog change) is written to the
 * journal file before its request leaves, which is as durable as the store's own write (SQLite's
 * WAL at `synchronous = NORMAL`: a killed process loses nothing written), and reported with the
 * ends in batches every {@link AUDITS_FLUSH_MS} ms: the call does not wait for the main thread.
 * Without a journal file nothing is kept.
 *
 * @example
 * ```ts
 * const audits = createWorkerAudits({ file: settings.journal, post: (m) => port.postMessage(m) });
 * if (audits.kept(eid, 'github', 'repos_get') && audits.journal(eid, start)) send();
 * ```
 */
export function createWorkerAudits(options: {
  readonly file?: string;
  readonly post: (message: FromWorker) => void;
}): WorkerAudits {
  const { post } = options;
  const journal = options.file === undefined ? undefined : openJournalWriter(options.file);
  const keptTools = new Map<number, Map<string, KeptDecision>>();
  let batch: AuditedEvent[] = [];
  let batchLine: number | undefined;
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0) return;
    const events = batch;
    const q = batchLine;
    batch = [];
    batchLine = undefined;
    // The main thread says when the lines are stored only while a closed file waits for it.
    post({ t: 'audits', events, ...(q !== undefined && journal?.waiting ? { q } : {}) });
  };
  const queue = (eid: number, event: AuditEvent) => {
    batch.push({ eid, event });
    if (batch.length >= MAX_BATCH) flush();
    else timer ??= setTimeout(flush, AUDITS_FLUSH_MS);
  };

  return {
    kept: (eid, serviceId, toolId) => keptTools.get(eid)?.get(`${serviceId}\u0000${toolId}`),
    keep(eid, serviceId, toolId, decision) {
      if (journal === undefined) return;
      let tools = keptTools.get(eid);
      if (!tools) {
        tools = new Map();
        keptTools.set(eid, tools);
      }
      if (tools.size < MAX_KEPT_TOOLS) tools.set(`${serviceId}\u0000${toolId}`, decision);
    },
    journal(eid, event) {
      const { serviceId: s, toolId: t, startedAt: at, id } = event;
      // Not written (a full disk): this start waits for the main thread instead.
      const q = journal?.append({ p: eid, s, t, at, id });
      if (q === undefined) return false;
      batchLine = q;
      queue(eid, { ...event, kept: q });
      return true;
    },
    ended: queue,
    flush,
    stored: (q) => journal?.stored(q),
    changed: () => keptTools.clear(),
    revoke: (eid) => keptTools.delete(eid),
    close() {
      flush();
      journal?.close();
    },
  };
}

/**
 * A kept call's trace context: `trace` (the first call's span) with a span id of its own, drawn
 * here; the main thread gives the call's span that id when the call is reported. Undefined when
 * `trace` names no valid span.
 */
export function keptCallTrace(
  trace: TraceCarrier,
): { readonly carrier: TraceCarrier; readonly spanId: string } | undefined {
  const first = spanContextOf(trace);
  if (!first) return undefined;
  const spanId = randomId(8);
  return { carrier: carrierOfSpan({ ...first, spanId }), spanId };
}
