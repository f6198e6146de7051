// The answer worker: reads large MCP messages off the host's main thread. It bounds a message's
// structure before `JSON.parse` builds it, and turns a tool result into the JSON text of the value
// cyrnel's code receives, so the main thread only ever holds one string. Self-contained on
// purpose: it runs from `dist/` as its own tsup entry and, in this package's tests, straight from
// `src/` through Node's type stripping, so it imports Node's modules only and uses only erasable
// TypeScript. The main thread imports its pure functions too (for small messages).
import { parentPort, workerData } from 'node:worker_threads';

/** The structure an answer may have. */
export interface AnswerLimits {
  /** Deepest nesting of arrays and objects in the value cyrnel's code receives. */
  readonly maxDepth: number;
  /** Most arrays, objects and values after a comma in one message. */
  readonly maxElements: number;
}

/** A JSON-RPC id as found in a message. */
export type MessageId = string | number;

/** What the worker (or the main thread, for a small message) made of one message. */
export type Answer =
  | { readonly kind: 'too-large'; readonly id: MessageId | undefined; readonly why: string }
  | { readonly kind: 'tool-result'; readonly id: MessageId; readonly json: string }
  | { readonly kind: 'message'; readonly message: unknown }
  | { readonly kind: 'invalid'; readonly why: string };

/**
 * How the bytes frame messages: one message (a stdio line), a JSON body of one message or a
 * batch (an HTTP answer), or a `text/event-stream` body of events, each one message.
 */
export type AnswerFormat = 'line' | 'json' | 'sse';

/** A request to the worker: one line's or body's bytes, in the pieces they arrived in (transferred). */
export interface AnswerRequest {
  readonly id: number;
  readonly pieces: readonly Uint8Array[];
  readonly format: AnswerFormat;
  readonly limits: AnswerLimits;
}

/** The worker's reply to an {@link AnswerRequest}: one answer per message, in order. */
export interface AnswerReply {
  readonly id: number;
  readonly answers: readonly Answer[];
}

/** Levels the JSON-RPC envelope adds above a tool's value (message, result, content, item). */
const ENVELOPE_DEPTH = 4;

/** The result of {@link scanJson}. */
export interface JsonScan {
  /** The limit the text exceeds, if any. */
  readonly exceeds: 'depth' | 'elements' | undefined;
  /** The top-level object's `id` (a number or a string), when it has one. */
  readonly id: MessageId | undefined;
}

/**
 * Scan a JSON text once without recursion: which limit it exceeds (every `[` or `{` outside a
 * string opens a level, every container and `,` is an element) and the top-level `id`. Past a
 * limit only the id is looked for, so an oversized answer still fails the one call it answers.
 * Strings are skipped with `indexOf` (native speed); malformed text is `JSON.parse`'s to refuse.
 */
export function scanJson(text: string, limits: { maxDepth: number; maxElements: number }): JsonScan {
  let depth = 0;
  let elements = 0;
  let exceeds: JsonScan['exceeds'];
  let id: MessageId | undefined;
  let expectKey = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      const end = closingQuote(text, index);
      if (end < 0) break;
      if (depth === 1 && expectKey) {
        expectKey = false;
        if (end === index + 3 && text.startsWith('id', index + 1)) {
          const value = idAfter(text, end + 1);
          if (value !== undefined) id = value;
        }
      }
      index = end;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      depth++;
      if (depth === 1) expectKey = char === OPEN_BRACE;
      if (exceeds === undefined && depth > limits.maxDepth) exceeds = 'depth';
      if (exceeds === undefined && ++elements > limits.maxElements) exceeds = 'elements';
    } else if (char === COMMA) {
      if (depth === 1) expectKey = true;
      if (exceeds === undefined && ++elements > limits.maxElements) exceeds = 'elements';
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) depth--;
  }
  return { exceeds, id };
}

/** The id value after `"id"` ending at `from` (`: 5` or `: "abc"`), or undefined. */
function idAfter(text: string, from: number): MessageId | undefined {
  const match = /^\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")/.exec(text.slice(from, from + 300));
  if (!match) return undefined;
  const raw = match[1] as string;
  return raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
}

/**
 * The id of an oversized message from the bytes kept of its start and end: servers write it
 * first (`{"jsonrpc":"2.0","id":7,…`) or last (`…,"jsonrpc":"2.0","id":7}`, the official SDKs).
 */
export function idOfCutMessage(head: string, tail: string): MessageId | undefined {
  const value = '(-?\\d{1,16}|"(?:[^"\\\\]|\\\\.){0,256}")';
  const first = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${value}`).exec(
    head,
  );
  const last = new RegExp(`"id"\\s*:\\s*${value}\\s*(?:,\\s*"jsonrpc"\\s*:\\s*"2\\.0"\\s*)?\\}\\s*$`).exec(
    tail,
  );
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return undefined;
  return raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
}

/** The index of the quote closing the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let end = open;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
  }
}

/**
 * Read one MCP message: bounded by structure, parsed, and a successful tool result (a response
 * whose result has `content` and no `isError`) turned into the JSON text of its value (the rules
 * of `resultValue`: `structuredContent`, else each content's JSON text parsed, else its text).
 */
export function readAnswer(text: string, limits: AnswerLimits): Answer {
  const envelope = { maxDepth: limits.maxDepth + ENVELOPE_DEPTH, maxElements: limits.maxElements };
  const scan = scanJson(text, envelope);
  if (scan.exceeds) return tooLarge(scan.id, scan.exceeds, limits);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'invalid', why: 'a message from the MCP server is not JSON' };
  }
  return answerOf(message, limits);
}

/** The answer of one parsed message (see {@link readAnswer}). */
function answerOf(message: unknown, limits: AnswerLimits): Answer {
  const result = (message as { result?: unknown }).result;
  const id = (message as { id?: unknown }).id;
  if (!isToolResult(result) || (typeof id !== 'number' && typeof id !== 'string'))
    return { kind: 'message', message };
  const value = toolValue(result, limits);
  if (value === TOO_DEEP) return tooLarge(id, 'depth', limits);
  if (value === TOO_MANY) return tooLarge(id, 'elements', limits);
  return { kind: 'tool-result', id, json: JSON.stringify(value) ?? 'null' };
}

function tooLarge(id: MessageId | undefined, what: 'depth' | 'elements', limits: AnswerLimits): Answer {
  return {
    kind: 'too-large',
    id,
    why:
      what === 'depth'
        ? `the MCP server's answer nests deeper than ${limits.maxDepth} levels`
        : `the MCP server's answer has more than ${limits.maxElements} elements`,
  };
}

const TOO_DEEP = Symbol('too deep');
const TOO_MANY = Symbol('too many');

function isToolResult(result: unknown): result is { content: unknown[]; structuredContent?: unknown } {
  if (typeof result !== 'object' || result === null) return false;
  const { content, isError } = result as { content?: unknown; isError?: unknown };
  return Array.isArray(content) && isError !== true;
}

/** The value of a tool result, or a marker when a text parsed as JSON exceeds the limits. */
function toolValue(
  result: { content: unknown[]; structuredContent?: unknown },
  limits: AnswerLimits,
): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return result.structuredContent;
  const values: unknown[] = [];
  for (const item of result.content) {
    const text =
      (item as { type?: unknown; text?: unknown })?.type === 'text'
        ? (item as { text: unknown }).text
        : undefined;
    if (typeof text !== 'string') {
      values.push(item);
      continue;
    }
    const value = textValue(text, limits);
    if (value === TOO_DEEP || value === TOO_MANY) return value;
    values.push(value);
  }
  if (values.length === 0) return null;
  return values.length === 1 ? values[0] : values;
}

/** A text content's value: its JSON parsed when it is JSON (within the limits), else the text. */
export function textValue(text: string, limits: AnswerLimits): unknown {
  const trimmed = text.trim();
  if (trimmed === '' || !'{["-0123456789tfn'.includes(trimmed[0] as string)) return text;
  const scan = scanJson(trimmed, limits);
  if (scan.exceeds === 'depth') return TOO_DEEP;
  if (scan.exceeds === 'elements') return TOO_MANY;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

/** Whether {@link textValue} found the text past a limit. */
export function pastLimits(value: unknown): value is symbol {
  return value === TOO_DEEP || value === TOO_MANY;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** `workerData` of the answer worker, so a worker of someone else's that bundles this file stays quiet. */
export const ANSWER_WORKER_DATA = 'cyrnel-mcp-answers';

/**
 * Read a body or a line in its format: a JSON batch is one answer per message, a
 * `text/event-stream` one per event with data (`data:` lines joined), the rest one answer.
 */
export function readAnswers(text: string, format: AnswerFormat, limits: AnswerLimits): Answer[] {
  if (format === 'sse') {
    const answers: Answer[] = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
      if (data.length > 0) answers.push(readAnswer(data.join('\n'), limits));
    }
    return answers;
  }
  if (format === 'json' && text.trimStart().startsWith('[')) {
    // A batch: bounded as a whole (one level more), then each message as one answer.
    const scan = scanJson(text, {
      maxDepth: limits.maxDepth + ENVELOPE_DEPTH + 1,
      maxElements: limits.maxElements,
    });
    if (scan.exceeds) return [tooLarge(undefined, scan.exceeds, limits)];
    try {
      return (JSON.parse(text) as unknown[]).map((message) => answerOf(message, limits));
    } catch {
      return [{ kind: 'invalid', why: 'a message from the MCP server is not JSON' }];
    }
  }
  return [readAnswer(text, limits)];
}

if (parentPort && workerData === ANSWER_WORKER_DATA) {
  const port = parentPort;
  const decoder = new TextDecoder('utf-8');
  port.on('message', (request: AnswerRequest) => {
    let answers: Answer[];
    try {
      const bytes = request.pieces.length === 1 ? request.pieces[0] : Buffer.concat(request.pieces);
      answers = readAnswers(decoder.decode(bytes), request.format, request.limits);
    } catch (error) {
      answers = [{ kind: 'invalid', why: error instanceof Error ? error.message : String(error) }];
    }
    port.postMessage({ id: request.id, answers } satisfies AnswerReply);
  });
}
