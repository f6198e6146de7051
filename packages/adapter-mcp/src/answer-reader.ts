import type { ModuleLogger } from '@cyrnel/sdk';
import { deserializeMessage, type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/client';
import type { AnswerParser } from './answer-parser';
import { type Answer, type AnswerLimits, idOfCutMessage, type MessageId, scanJson } from './answer-worker';
import type { JsonTextStash } from './json-text-stash';

/**
 * The JSON-RPC error code of the answer cyrnel makes up for a request whose real answer was too
 * large (bytes, depth or elements): the call fails with `upstream_answer_too_large`.
 */
export const ANSWER_TOO_LARGE_CODE = -32_090;

/** Warnings about unreadable messages logged per connection. */
const MAX_WARNINGS = 20;

/** Messages up to this many bytes are read on the main thread (a worker hop costs more). */
export const INLINE_BYTES = 256 * 1024;

/** Options of {@link createAnswerReader}. */
export interface AnswerReaderOptions {
  /** The adapter's workers (shared by its connections). */
  readonly parser: () => AnswerParser;
  readonly limits: AnswerLimits;
  /** The largest message, in bytes (what the transport skips beyond). */
  readonly maxBytes: number;
  /**
   * The key of `structuredContent` under which a tool result read in a worker travels as JSON
   * text: random per adapter, so no server can forge it.
   */
  readonly jsonTextKey: string;
  /** Where tool results read in a worker wait for their call (the message carries a token). */
  readonly stash: JsonTextStash;
  readonly logger: ModuleLogger;
  readonly label: string;
}

/** Turns the lines of an MCP server into the messages its SDK client receives. */
export interface AnswerReader {
  /**
   * One whole message line, as the pieces it arrived in (transferred to a worker when large):
   * its message, or undefined when there is nothing to hand on.
   */
  read(pieces: readonly Buffer[], bytes: number): Promise<JSONRPCMessage | undefined>;
  /** A line past {@link AnswerReaderOptions.maxBytes}, skipped: the error of the call it answered. */
  oversized(head: string, tail: string, bytes: number): JSONRPCMessage | undefined;
  /**
   * A whole HTTP answer (`application/json` or `text/event-stream`) larger than
   * {@link INLINE_BYTES}, read in a worker: the JSON text of its messages (a batch) for the SDK to
   * read instead, small since tool results wait in the stash.
   */
  readBody(pieces: Uint8Array[], format: 'json' | 'sse'): Promise<string>;
}

/**
 * Read MCP messages bounded and off the main thread. A small message is checked (depth,
 * elements) and parsed here; a large one goes to a worker, which answers a tool result as the
 * JSON text of its value (`structuredContent[jsonTextKey]`, handed on unparsed as `JsonText`).
 * An answer past a bound becomes a JSON-RPC error of its own request (code
 * {@link ANSWER_TOO_LARGE_CODE}): that call fails, the connection stays.
 *
 * @example
 * ```ts
 * const answers = createAnswerReader({ parser, limits, maxBytes, jsonTextKey, logger, label });
 * const message = await answers.read(line); // then transport.onmessage(message)
 * ```
 */
export function createAnswerReader(options: AnswerReaderOptions): AnswerReader {
  const { limits, logger, label } = options;
  const envelope = { maxDepth: limits.maxDepth + 4, maxElements: limits.maxElements };

  // Warnings of one server are bounded: a server writing garbage must not flood the log.
  let warnings = 0;
  const warn = (message: string, why: string) => {
    warnings++;
    if (warnings <= MAX_WARNINGS) logger.warn(message, { service: label, why });
    else if (warnings === MAX_WARNINGS + 1)
      logger.warn('MCP server keeps sending messages cyrnel cannot read; no more of these warnings', {
        service: label,
      });
  };
  const tooLarge = (id: MessageId | undefined, why: string): JSONRPCMessage | undefined => {
    if (id === undefined) {
      warn('MCP server sent a message past the bounds without an id; skipped', why);
      return undefined;
    }
    return { jsonrpc: '2.0', id, error: { code: ANSWER_TOO_LARGE_CODE, message: why } };
  };
  const invalid = (why: string): undefined => {
    warn('MCP server sent a message that is not JSON-RPC; skipped', why);
    return undefined;
  };
  const fromAnswer = (answer: Answer): JSONRPCMessage | undefined => {
    switch (answer.kind) {
      case 'too-large':
        return tooLarge(answer.id, answer.why);
      case 'invalid':
        return invalid(answer.why);
      case 'tool-result':
        return {
          jsonrpc: '2.0',
          id: answer.id,
          result: {
            content: [],
            structuredContent: { [options.jsonTextKey]: options.stash.put(answer.json) },
          },
        };
      case 'message':
        try {
          return parseJSONRPCMessage(answer.message);
        } catch (error) {
          return invalid((error as Error).message);
        }
    }
  };

  return {
    async read(pieces, bytes) {
      if (bytes > INLINE_BYTES) {
        const [answer] = await options.parser().read(pieces, 'line');
        return answer ? fromAnswer(answer) : undefined;
      }
      const text = (pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces)).toString('utf8');
      const scan = scanJson(text, envelope);
      if (scan.exceeds === 'depth')
        return tooLarge(scan.id, `the MCP server's answer nests deeper than ${limits.maxDepth} levels`);
      if (scan.exceeds === 'elements')
        return tooLarge(scan.id, `the MCP server's answer has more than ${limits.maxElements} elements`);
      try {
        return deserializeMessage(text);
      } catch (error) {
        return invalid((error as Error).message);
      }
    },
    async readBody(pieces, format) {
      const answers = await options.parser().read(pieces, format);
      const messages = answers.flatMap((answer) => {
        const message = fromAnswer(answer);
        return message ? [message] : [];
      });
      return JSON.stringify(messages);
    },
    oversized(head, tail, bytes) {
      return tooLarge(
        idOfCutMessage(head, tail),
        `the MCP server's answer is larger than ${options.maxBytes} bytes (${bytes} bytes)`,
      );
    },
  };
}
