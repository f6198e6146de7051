import type { LogFields, ServerLogger } from './create-logger';

/**
 * A logger writing every line to both `first` and `second` (the output and the buffer behind
 * `/logs`), each with its own level; children tee too.
 *
 * @example
 * ```ts
 * const logger = teeLogger(createLogger({ level: 'warn' }), ringLogger(ring, 'info'));
 * ```
 */
export function teeLogger(first: ServerLogger, second: ServerLogger): ServerLogger {
  const both =
    (write: (logger: ServerLogger, message: string, fields?: LogFields) => void) =>
    (message: string, fields?: LogFields) => {
      write(first, message, fields);
      write(second, message, fields);
    };
  return {
    debug: both((logger, message, fields) => logger.debug(message, fields)),
    info: both((logger, message, fields) => logger.info(message, fields)),
    warn: both((logger, message, fields) => logger.warn(message, fields)),
    error: both((logger, message, fields) => logger.error(message, fields)),
    announce: both((logger, message, fields) => logger.announce(message, fields)),
    child: (fields) => teeLogger(first.child(fields), second.child(fields)),
  };
}
