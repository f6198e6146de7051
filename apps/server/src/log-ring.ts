import { LOG_LINE_LEVELS, type LogLine, type LogLineLevel } from '@cyrnel/sdk/api';

/** Options of {@link createLogRing}. */
export interface LogRingOptions {
  /** Lines kept; the oldest is dropped for each new one beyond. */
  readonly capacity: number;
  /**
   * Longest JSON of one line's fields, in characters; past it the fields are cut to a preview, so
   * the ring holds at most about `capacity × maxFieldsChars` (default 8,192).
   */
  readonly maxFieldsChars?: number;
  /** Told of every line kept (the metrics count them by level). */
  readonly onLine?: (line: LogLine) => void;
}

/**
 * The server's recent log lines in memory, for `GET /logs` (the `LogSource` of `@cyrnel/http`): a
 * ring of at most `capacity` lines, each numbered (`seq`), its followers told of each new one.
 * Lines come already redacted: the ring sits below the server's redacting logger.
 */
export interface LogRing {
  readonly capacity: number;
  /** Keep one line (its fields copied as JSON: nothing written later changes it). */
  write(level: LogLineLevel, message: string, fields: Readonly<Record<string, unknown>>): void;
  /** The lines kept now, oldest first. */
  lines(): readonly LogLine[];
  /** Call `listener` with every line kept from now on; answers the unsubscribe. */
  subscribe(listener: (line: LogLine) => void): () => void;
}

const DEFAULT_MAX_FIELDS_CHARS = 8192;
/** Longest message kept whole. */
const MAX_MESSAGE_CHARS = 4096;

/**
 * Create the ring.
 *
 * @example
 * ```ts
 * const ring = createLogRing({ capacity: 2000 });
 * ring.write('warn', 'slow upstream', { component: 'core', processId: 7 });
 * ring.lines()[0]; // { seq: 1, level: 'warn', msg: 'slow upstream', component: 'core', processId: 7, … }
 * ```
 */
export function createLogRing(options: LogRingOptions): LogRing {
  const { capacity } = options;
  const maxFieldsChars = options.maxFieldsChars ?? DEFAULT_MAX_FIELDS_CHARS;
  // A circular buffer: `start` is the oldest line once it is full.
  const kept: LogLine[] = [];
  let start = 0;
  let seq = 0;
  const listeners = new Set<(line: LogLine) => void>();
  return {
    capacity,
    write(level, message, fields) {
      if (capacity === 0) return;
      const line = logLine(++seq, level, message, fields, maxFieldsChars);
      if (kept.length < capacity) kept.push(line);
      else {
        kept[start] = line;
        start = (start + 1) % capacity;
      }
      options.onLine?.(line);
      for (const listener of listeners) {
        try {
          listener(line);
        } catch {
          // A failing follower must not stop the others, nor the line being logged.
        }
      }
    },
    lines: () => [...kept.slice(start), ...kept.slice(0, start)],
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** A positive integer, or undefined. */
const processIdOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;

/**
 * One line as `/logs` shows it: `component` and `processId` lifted out of the fields (a process's
 * lines name it `processId`, or `id` in the core's `process: …` lines), the rest kept as JSON.
 */
function logLine(
  seq: number,
  level: LogLineLevel,
  message: string,
  fields: Readonly<Record<string, unknown>>,
  maxFieldsChars: number,
): LogLine {
  const { component, processId, ...rest } = fields;
  const process = processIdOf(processId) ?? processIdOf(rest.id);
  return Object.freeze({
    seq,
    time: new Date().toISOString(),
    level: (LOG_LINE_LEVELS as readonly string[]).includes(level) ? level : 'info',
    msg: message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message,
    component: typeof component === 'string' ? component : null,
    processId: process ?? null,
    fields: jsonFields(rest, maxFieldsChars),
  });
}

/** The fields as plain JSON (errors by their message, big integers as text), cut past `maxChars`. */
function jsonFields(fields: Record<string, unknown>, maxChars: number): Record<string, unknown> {
  let text: string;
  try {
    text = JSON.stringify(fields, (_key, value: unknown) => {
      if (typeof value === 'bigint') return value.toString();
      if (value instanceof Error) return value.message;
      return value;
    });
  } catch {
    return { unserializable: true };
  }
  if (text.length > maxChars) return { truncated: `${text.slice(0, maxChars)}…`, chars: text.length };
  return JSON.parse(text) as Record<string, unknown>;
}
