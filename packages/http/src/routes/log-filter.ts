import { cyrnelError } from '@cyrnel/core';
import { LOG_LINE_LEVELS, type LogLine, type LogLineLevel, type LogsQuery } from '@cyrnel/sdk/api';

/** Lines a `GET /logs` answers when it does not say (`tail`). */
export const DEFAULT_LOG_TAIL = 100;

/** Which lines a request wants: the least severe level, and optionally a component, a process, lines after a `seq`. */
export interface LogFilter {
  readonly level: LogLineLevel;
  readonly component?: string;
  readonly processId?: number;
  readonly after?: number;
}

const RANK: Readonly<Record<LogLineLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** The filter of a `GET /logs` query; 400 `invalid_request` naming `level` when it is no level. */
export function logFilterOf(query: LogsQuery | undefined, lastEventId?: string): LogFilter {
  const level = query?.level ?? 'debug';
  if (!(LOG_LINE_LEVELS as readonly string[]).includes(level)) {
    const message = `must be one of ${LOG_LINE_LEVELS.join(', ')}`;
    throw cyrnelError('invalid_request', `invalid query: level ${message}`, {
      details: [{ path: 'level', message }],
    });
  }
  // A reconnecting EventSource says where it was: its last event's id is a line's `seq`.
  const resumed = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : undefined;
  const after = query?.after ?? resumed;
  return {
    level,
    ...(query?.component === undefined ? {} : { component: query.component }),
    ...(query?.processId === undefined ? {} : { processId: query.processId }),
    ...(after === undefined ? {} : { after }),
  };
}

/** Whether `line` is one the filter keeps. */
export function matchesLogFilter(line: LogLine, filter: LogFilter): boolean {
  return (
    RANK[line.level] >= RANK[filter.level] &&
    (filter.component === undefined || line.component === filter.component) &&
    (filter.processId === undefined || line.processId === filter.processId) &&
    (filter.after === undefined || line.seq > filter.after)
  );
}

/** The newest `tail` lines of `lines` (oldest first) that the filter keeps, oldest first. */
export function tailOfLogs(lines: readonly LogLine[], filter: LogFilter, tail: number): LogLine[] {
  const kept: LogLine[] = [];
  for (let i = lines.length - 1; i >= 0 && kept.length < tail; i--) {
    const line = lines[i] as LogLine;
    // Lines are in `seq` order: nothing older can be after `after`.
    if (filter.after !== undefined && line.seq <= filter.after) break;
    if (matchesLogFilter(line, filter)) kept.push(line);
  }
  return kept.reverse();
}
