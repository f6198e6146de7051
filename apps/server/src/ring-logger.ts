import type { LogLineLevel } from '@cyrnel/sdk/api';
import type { LogFields, ServerLogger } from './create-logger';
import type { LogRing } from './log-ring';

const RANK: Readonly<Record<LogLineLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * A {@link ServerLogger} that keeps its lines at `level` and above in `ring` (announcements as
 * `info` lines); `child` adds fields like the output logger's.
 *
 * @example
 * ```ts
 * const logger = ringLogger(createLogRing({ capacity: 2000 }), 'info');
 * ```
 */
export function ringLogger(ring: LogRing, level: LogLineLevel, bound: LogFields = {}): ServerLogger {
  const threshold = RANK[level];
  const keep = (lineLevel: LogLineLevel) => (message: string, fields?: LogFields) => {
    if (RANK[lineLevel] >= threshold) ring.write(lineLevel, message, { ...bound, ...fields });
  };
  return {
    debug: keep('debug'),
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    announce: (message, fields) => ring.write('info', message, { ...bound, ...fields }),
    child: (fields) => ringLogger(ring, level, { ...bound, ...fields }),
  };
}
