/** Log levels, quietest last. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** The server's structured logger (also handed to the core and the HTTP layer). */
export interface ServerLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /**
   * An `info` line written whatever the level, even `silent`: the readiness announcement (the
   * URL it listens on, the one way to learn the port with `--port 0`) is the binary's output,
   * not a log to filter.
   */
  announce(message: string, fields?: LogFields): void;
  /** A logger adding `fields` to every line. */
  child(fields: LogFields): ServerLogger;
}

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Lines below this level are dropped. */
  level: LogLevel;
  /** Readable lines instead of JSON (for terminals). */
  pretty?: boolean;
  /** Where lines go. Default: stdout. */
  write?: (line: string) => void;
}

/** A logger that writes nothing at all, announcements included (the default of embedders). */
export function createSilentLogger(): ServerLogger {
  return createLogger({ level: 'silent', write: () => {} });
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Create a logger writing one JSON object per line (`time`, `level`, `msg`, fields). */
export function createLogger(options: CreateLoggerOptions, bound: LogFields = {}): ServerLogger {
  const threshold = RANK[options.level];
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const emit = (
    level: Exclude<LogLevel, 'silent'>,
    message: string,
    fields: LogFields = {},
    always = false,
  ) => {
    if (RANK[level] < threshold && !always) return;
    const time = new Date().toISOString();
    const all = { ...bound, ...fields };
    if (options.pretty) {
      const extra = Object.entries(all)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join(' ');
      write(`${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${message}${extra ? ` ${extra}` : ''}\n`);
      return;
    }
    write(`${JSON.stringify({ time, level, msg: message, ...all })}\n`);
  };
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    announce: (message, fields) => emit('info', message, fields, true),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}
