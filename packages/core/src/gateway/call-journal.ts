import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ModuleLogger } from '@cyrnel/sdk';
import type { ToolCallRecord } from '@cyrnel/sdk/api';
import type { ProcessStorage } from '../processes/process-storage';
import type { CallJournalLine } from './gateway-protocol';

/**
 * A journal file's name: `w<worker>-<start>.jsonl`, one per worker thread started, and
 * `h-<n>.jsonl`, the host thread's own (see `createHostJournal`); then `….jsonl.<n>` as each grows
 * past a segment's size.
 */
const JOURNAL_FILE = /^(w\d+|h)-\d+\.jsonl(\.\d+)?$/;

/** Every file of the journal that starts with `file` (it and its later segments). */
export function journalFiles(file: string): string[] {
  const dir = dirname(file);
  const name = basename(file);
  try {
    return readdirSync(dir)
      .filter(
        (entry) =>
          entry === name || (entry.startsWith(`${name}.`) && /^\d+$/.test(entry.slice(name.length + 1))),
      )
      .map((entry) => join(dir, entry));
  } catch {
    return [];
  }
}

/** The lines of a journal file that parse (a line cut by a crash does not); none when it is gone. */
export function readCallJournal(file: string): CallJournalLine[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const lines: CallJournalLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    try {
      const line = JSON.parse(raw) as CallJournalLine;
      if (
        Number.isSafeInteger(line.q) &&
        Number.isSafeInteger(line.p) &&
        typeof line.s === 'string' &&
        typeof line.t === 'string' &&
        Number.isFinite(line.at) &&
        Number.isSafeInteger(line.id)
      )
        lines.push(line);
    } catch {
      // The last line of a killed writer may be cut: it never left (its request went after it).
    }
  }
  return lines;
}

/** The journal directory, created private (its files name services, tools and process ids). */
export function openJournalDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/** A call as the journal identifies it among a run's stored calls. */
const keyOf = (serviceId: string, toolId: string, startedAt: string) =>
  `${serviceId}\u0000${toolId}\u0000${startedAt}`;

/**
 * Fold the journals a host left (killed before its main thread stored every journaled start) into
 * the process storage, then remove them: each journaled call that a stored run does not list is
 * appended to it as interrupted (`ok: null`), as a call whose answer never came. Runs at start,
 * before anything is journaled again. Answers how many calls were added.
 *
 * @example
 * ```ts
 * await foldCallJournals(join(dataDir, 'call-journal'), storage, logger);
 * ```
 */
export async function foldCallJournals(
  dir: string,
  storage: ProcessStorage,
  logger: ModuleLogger,
): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => JOURNAL_FILE.test(name));
  } catch {
    return 0;
  }
  const byProcess = new Map<number, CallJournalLine[]>();
  for (const name of names) {
    for (const line of readCallJournal(join(dir, name))) {
      let lines = byProcess.get(line.p);
      if (!lines) {
        lines = [];
        byProcess.set(line.p, lines);
      }
      lines.push(line);
    }
  }
  let added = 0;
  for (const [id, lines] of byProcess) {
    if (!(await storage.get(id))) continue;
    const stored = await storage.calls(id);
    const known = new Map<string, number>();
    for (const call of stored) {
      const key = keyOf(call.serviceId, call.toolId, call.startedAt);
      known.set(key, (known.get(key) ?? 0) + 1);
    }
    const missing: ToolCallRecord[] = [];
    for (const line of lines.sort((a, b) => a.at - b.at)) {
      const startedAt = new Date(line.at).toISOString();
      const key = keyOf(line.s, line.t, startedAt);
      const count = known.get(key) ?? 0;
      if (count > 0) {
        known.set(key, count - 1);
        continue;
      }
      missing.push({
        serviceId: line.s,
        toolId: line.t,
        startedAt,
        durationMs: 0,
        ok: null,
        errorCode: null,
        errorReason: null,
        decision: null,
        resultBytes: null,
      });
    }
    if (missing.length === 0) continue;
    await storage.openCalls(
      id,
      missing.map((call, offset) => ({ index: stored.length + offset, call })),
    );
    added += missing.length;
  }
  for (const name of names) rmSync(join(dir, name), { force: true });
  if (added > 0) logger.warn('process: journaled tool calls of interrupted runs recorded', { calls: added });
  return added;
}
