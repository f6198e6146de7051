import type { ModuleLogger } from '@cyrnel/sdk';

/** Longest stderr line logged; the rest of it is cut. */
export const MAX_STDERR_LINE = 2_000;
/** Lines logged per window; the others are counted and reported once the window ends. */
export const STDERR_LINES_PER_WINDOW = 100;
const WINDOW_MS = 60_000;

/** The stderr of one MCP server, written to the server log. */
export interface StderrLog {
  write(chunk: Buffer): void;
  /** The server is gone: log what is left of the last line and the lines dropped. */
  end(): void;
}

/**
 * The stderr of an MCP server goes to the server log only (through the module logger, which the
 * host redacts): a server may print its token or a stack there, and nothing of it may reach an
 * error, an event or a result an agent reads. One log line per stderr line, each cut at
 * {@link MAX_STDERR_LINE} characters, at most {@link STDERR_LINES_PER_WINDOW} a minute, so a chatty
 * or hostile server cannot flood the log.
 *
 * @example
 * ```ts
 * const log = createStderrLog(logger, 'service memory');
 * child.stderr.on('data', (chunk) => log.write(chunk));
 * ```
 */
export function createStderrLog(logger: ModuleLogger, label: string): StderrLog {
  let partial = '';
  let windowStart = Date.now();
  let logged = 0;
  let dropped = 0;

  const reportDropped = () => {
    if (dropped > 0) logger.warn('MCP server stderr lines dropped', { service: label, dropped });
    dropped = 0;
  };
  const emit = (line: string) => {
    const text = line.replace(/\r$/, '');
    if (text.trim() === '') return;
    const now = Date.now();
    if (now - windowStart >= WINDOW_MS) {
      reportDropped();
      windowStart = now;
      logged = 0;
    }
    if (logged >= STDERR_LINES_PER_WINDOW) {
      dropped++;
      return;
    }
    logged++;
    logger.info('MCP server stderr', { service: label, line: text.slice(0, MAX_STDERR_LINE) });
  };

  return {
    write(chunk) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = (lines.pop() ?? '').slice(0, MAX_STDERR_LINE);
      for (const line of lines) emit(line);
    },
    end() {
      if (partial !== '') emit(partial);
      partial = '';
      reportDropped();
    },
  };
}
