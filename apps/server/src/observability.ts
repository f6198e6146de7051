import type { Redactor } from '@cyrnel/core';
import type { ServerLogger } from './create-logger';
import { createLogRing, type LogRing } from './log-ring';
import { createServerMetrics, type ServerMetrics } from './metrics-registry';
import { redactingServerLogger } from './redacting-server-logger';
import { ringLogger } from './ring-logger';
import type { ServerConfig } from './server-flags';
import { teeLogger } from './tee-logger';

/** What operators watch a server by: its logger (the output and the buffer), its metrics and its recent lines. */
export interface Observability {
  /** The server's logger: every line redacted, then written to the output and kept in `logs`. */
  readonly logger: ServerLogger;
  readonly metrics: ServerMetrics;
  /** The buffer behind `GET /logs`; undefined with `--log-buffer-lines 0`. */
  readonly logs: LogRing | undefined;
}

/**
 * The server's logger, metrics and log buffer. Every line goes through `redactor` first, then to
 * `output` and to the buffer (at `info` and above, `debug` too with `--log-level debug`, whatever
 * level `output` writes): no secret the server knows ever enters the buffer.
 *
 * @example
 * ```ts
 * const { logger, metrics, logs } = createObservability(config, createLogger({ level: 'info' }), redactor, '0.1.0');
 * ```
 */
export function createObservability(
  config: Pick<ServerConfig, 'hostId' | 'logLevel' | 'logBufferLines'>,
  output: ServerLogger,
  redactor: Redactor,
  version: string,
): Observability {
  const metrics = createServerMetrics({ version, hostId: config.hostId });
  const logs =
    config.logBufferLines > 0
      ? createLogRing({ capacity: config.logBufferLines, onLine: metrics.countLine })
      : undefined;
  const kept = logs
    ? teeLogger(output, ringLogger(logs, config.logLevel === 'debug' ? 'debug' : 'info'))
    : output;
  return { logger: redactingServerLogger(kept, redactor), metrics, logs };
}
