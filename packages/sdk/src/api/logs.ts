import type { JSONSchema } from '../json-schema';

/** The levels of the server's log lines, least severe first. */
export const LOG_LINE_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** The level of a log line. */
export type LogLineLevel = (typeof LOG_LINE_LEVELS)[number];

/**
 * One line of the server's log, as `GET /logs` answers it and its live stream sends it. Secrets
 * the server holds were replaced with `***` before the line was kept.
 */
export interface LogLine {
  /**
   * Its position among the lines this server kept since it started: one more than the line
   * before. Pass the last one seen as `after` to read (or follow) only newer lines.
   */
  seq: number;
  /** ISO timestamp. */
  time: string;
  level: LogLineLevel;
  msg: string;
  /** The part of the server that wrote it (`http`, `core`, `mcp-tools`, `oauth`, …), null when none. */
  component: string | null;
  /** The process the line is about, when it names one. */
  processId: number | null;
  /** The line's other fields (`service`, `error`, `requestId`, …). */
  fields: Record<string, unknown>;
}

/**
 * `GET /logs`: which lines, oldest first. `level` is the least severe level shown (`debug`,
 * `info`, `warn`, `error`), `component` and `processId` keep only the lines of that part of the
 * server or about that process; `tail` is how many of the newest matching lines (default 100, at
 * most the server's buffer; every newer one when `after` is given), `after` only lines whose
 * `seq` is greater. `follow` (or `Accept: text/event-stream`) answers Server-Sent Events: those
 * lines, then every new matching line as it is written (event `log`, its `id` the line's `seq`).
 */
export interface LogsQuery {
  level?: LogLineLevel;
  component?: string;
  processId?: number;
  tail?: number;
  after?: number;
  follow?: boolean;
}

/** `GET /logs` (not followed). */
export interface LogsResponse {
  /** The matching lines, oldest first. */
  items: LogLine[];
  /** How many lines the server keeps at most (older ones are dropped as new ones come). */
  capacity: number;
}

/** The JSON Schema of a {@link LogLine} (`LogLine` among the records of the OpenAPI document). */
export const LOG_LINE_SCHEMA: JSONSchema = {
  type: 'object',
  required: ['seq', 'time', 'level', 'msg', 'component', 'processId', 'fields'],
  additionalProperties: false,
  properties: {
    seq: { type: 'integer', minimum: 1 },
    time: { type: 'string' },
    level: { enum: [...LOG_LINE_LEVELS] },
    msg: { type: 'string' },
    component: { type: ['string', 'null'] },
    processId: { type: ['integer', 'null'] },
    fields: { type: 'object' },
  },
};
