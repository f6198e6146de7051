import type { ModuleLogger } from '@cyrnel/sdk';

/** A logger that does nothing (the default when the host gets none). */
export const silentLogger: ModuleLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger adding `fields` to every entry, e.g. `{ module: 'openapi' }`. */
export function scopedLogger(logger: ModuleLogger, fields: Record<string, unknown>): ModuleLogger {
  return {
    debug: (message, extra) => logger.debug(message, { ...fields, ...extra }),
    info: (message, extra) => logger.info(message, { ...fields, ...extra }),
    warn: (message, extra) => logger.warn(message, { ...fields, ...extra }),
    error: (message, extra) => logger.error(message, { ...fields, ...extra }),
  };
}

/** The message of a thrown value, for logs and module status (never include secrets in it). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
