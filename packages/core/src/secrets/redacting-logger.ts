import type { ModuleLogger } from '@cyrnel/sdk';
import type { Redactor } from './redactor';

/**
 * A logger whose lines carry no secret the host holds: the message and every string among the
 * fields go through `redactor` (modules' own log lines, an MCP server's stderr, errors).
 *
 * @example
 * ```ts
 * const logger = redactingLogger(options.logger, redactor);
 * logger.warn('upstream refused', { error: 'token ghp_abc123 is invalid' }); // … token *** is invalid
 * ```
 */
export function redactingLogger(logger: ModuleLogger, redactor: Redactor): ModuleLogger {
  const line = (write: ModuleLogger['info']) => (message: string, fields?: Record<string, unknown>) =>
    write(redactor.redact(message), fields === undefined ? undefined : redactor.redactValue(fields));
  return {
    debug: line((message, fields) => logger.debug(message, fields)),
    info: line((message, fields) => logger.info(message, fields)),
    warn: line((message, fields) => logger.warn(message, fields)),
    error: line((message, fields) => logger.error(message, fields)),
  };
}
