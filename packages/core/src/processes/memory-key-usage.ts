import type { ProcessRecord, ToolCallRecord } from '@cyrnel/sdk/api';
import type { ProcessResults } from './process-storage';
import type { KeyUsage, PruneRule } from './quota-storage';
import { CALL_ROW_BYTES, storedProcessBytes, storedTexts } from './stored-bytes';

/** What the memory storage's rows hold that counts against a key. */
export interface MeasuredRow {
  readonly record: ProcessRecord;
  readonly code: string;
  readonly results: ProcessResults;
  readonly calls: readonly ToolCallRecord[];
}

/** The running totals per key of the memory storage, adjusted at every write of a row. */
export interface MemoryKeyUsage {
  /** Count `row` as it is now (after an insert or a write of its texts or calls). */
  measure(row: MeasuredRow): void;
  /** Stop counting `row` (deleted). */
  forget(row: MeasuredRow): void;
  usage(keyId: string): KeyUsage;
  /** Delete up to `rule.limit` idle rows of `rows` that match `rule`, oldest first. */
  prune(rows: Map<number, MeasuredRow>, rule: PruneRule): number;
}

/** Totals per key kept beside the memory storage's rows (the SQL stores keep them in triggers). */
export function createMemoryKeyUsage(): MemoryKeyUsage {
  const totals = new Map<string, { storedBytes: number; processes: number }>();
  const counted = new WeakMap<MeasuredRow, number>();
  const totalOf = (keyId: string) => {
    let total = totals.get(keyId);
    if (!total) {
      total = { storedBytes: 0, processes: 0 };
      totals.set(keyId, total);
    }
    return total;
  };
  const bytesOf = (row: MeasuredRow) =>
    storedProcessBytes(storedTexts(row.code, row.record.envConfig, row.results)) +
    CALL_ROW_BYTES * row.calls.length;

  const usage: MemoryKeyUsage = {
    measure(row) {
      const { keyId } = row.record;
      if (keyId === null) return;
      const total = totalOf(keyId);
      const before = counted.get(row);
      const bytes = bytesOf(row);
      if (before === undefined) total.processes++;
      total.storedBytes += bytes - (before ?? 0);
      counted.set(row, bytes);
    },
    forget(row) {
      const before = counted.get(row);
      const { keyId } = row.record;
      if (before === undefined || keyId === null) return;
      const total = totalOf(keyId);
      total.processes--;
      total.storedBytes -= before;
      counted.delete(row);
    },
    usage: (keyId) => ({ ...(totals.get(keyId) ?? { storedBytes: 0, processes: 0 }) }),
    prune(rows, { idleBefore, keepPerKey, limit }) {
      const ids = [...rows.keys()].sort((a, b) => a - b);
      // The newest `keepPerKey` processes of each key are kept, idle or not.
      const newest = new Map<string, number>();
      const kept = new Set<number>();
      for (const id of [...ids].reverse()) {
        const keyId = (rows.get(id) as MeasuredRow).record.keyId;
        if (keyId === null || keepPerKey === undefined) continue;
        const seen = newest.get(keyId) ?? 0;
        if (seen < keepPerKey) kept.add(id);
        newest.set(keyId, seen + 1);
      }
      let deleted = 0;
      for (const id of ids) {
        if (deleted >= limit) break;
        const row = rows.get(id) as MeasuredRow;
        if (row.record.state !== 'idle') continue;
        const old = idleBefore !== undefined && row.record.updatedAt < idleBefore;
        const beyond = keepPerKey !== undefined && row.record.keyId !== null && !kept.has(id);
        if (!old && !beyond) continue;
        usage.forget(row);
        rows.delete(id);
        deleted++;
      }
      return deleted;
    },
  };
  return usage;
}
