import type { Redactor } from '@cyrnel/core';
import type { LogFields, ServerLogger } from './create-logger';

/**
 * The server's logger with every line redacted: its message and every string among its fields
 * go through the host's redactor, in the lines of every component (the core, modules, the HTTP
 * layer, the access log) and of the children it makes.
 *
 * @example
 * ```ts
 * const logger = redactingServerLogger(createLogger({ level: 'info' }), redactor);
 * ```
 */
export function redactingServerLogger(logger: ServerLogger, redactor: Redactor): ServerLogger {
  const fieldsOf = (fields: LogFields | undefined) =>
    fields === undefined ? undefined : redactor.redactValue(fields);
  return {
    debug: (message, fields) => logger.debug(redactor.redact(message), fieldsOf(fields)),
    info: (message, fields) => logger.info(redactor.redact(message), fieldsOf(fields)),
    warn: (message, fields) => logger.warn(redactor.redact(message), fieldsOf(fields)),
    error: (message, fields) => logger.error(redactor.redact(message), fieldsOf(fields)),
    announce: (message, fields) => logger.announce(redactor.redact(message), fieldsOf(fields)),
    child: (fields) => redactingServerLogger(logger.child(fieldsOf(fields) ?? {}), redactor),
  };
}
