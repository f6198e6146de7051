import type { ProcessRecord, ToolCallRecord } from '@cyrnel/sdk/api';
import { NO_SERVICE_USAGE, type ServiceUsage } from './stats-storage';

/** A stored process as the memory storage holds it: its record and its calls by index (holes allowed). */
export interface StoredRun {
  readonly record: ProcessRecord;
  readonly calls: readonly (ToolCallRecord | undefined)[];
}

/**
 * `ServiceStatsStorage.serviceStats` over the memory storage's rows: the same sums the SQL stores
 * make (see `ServiceStatsStorage`).
 *
 * @example
 * ```ts
 * serviceUsageOf(rows.values(), 'shop'); // { runs: 2, toolCalls: 3, toolResultBytes: 120, ... }
 * ```
 */
export function serviceUsageOf(rows: Iterable<StoredRun>, serviceId: string): ServiceUsage {
  const usage = { ...NO_SERVICE_USAGE };
  let cpuMs: number | null = null;
  for (const { record, calls } of rows) {
    const { metrics } = record;
    if (!metrics) continue;
    let called = 0;
    let bytes = 0;
    for (const call of calls) {
      if (call?.serviceId !== serviceId) continue;
      called++;
      bytes += call.resultBytes ?? 0;
    }
    if (called === 0) continue;
    usage.runs++;
    usage.toolCalls += called;
    usage.toolResultBytes += bytes;
    usage.returnedBytes += metrics.returnedBytes;
    usage.wallMs += metrics.wallMs;
    if (metrics.cpuMs !== null) cpuMs = (cpuMs ?? 0) + metrics.cpuMs;
    const { startedAt, completedAt } = record;
    if (startedAt !== null && (usage.firstRunAt === null || startedAt < usage.firstRunAt))
      usage.firstRunAt = startedAt;
    if (completedAt !== null && (usage.lastRunAt === null || completedAt > usage.lastRunAt))
      usage.lastRunAt = completedAt;
  }
  return { ...usage, cpuMs };
}
