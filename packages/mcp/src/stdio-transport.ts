import type { Readable, Writable } from 'node:stream';
import {
  INVALID_REQUEST,
  type JSONRPCMessage,
  PARSE_ERROR,
  parseJSONRPCMessage,
  type RequestId,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
} from '@modelcontextprotocol/server';
import { batchRefusal, batchRefusalResponse, errorResponse, isWireRequest, paramsRefusal } from './json-rpc';
import { createStdioBatches } from './stdio-batches';

/** Options of {@link createStdioTransport}. */
export interface StdioTransportOptions {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Longest line (message) in bytes; a longer one is refused and skipped. Default 10 MiB. */
  readonly maxLineBytes?: number;
  /** The lists the server pages (their cursors are its own to check); a cursor of any other is `-32602`. */
  readonly pagedLists?: ReadonlySet<string>;
  /** Rewrites each valid message before the server sees it (default: none). */
  readonly inbound?: (message: JSONRPCMessage) => JSONRPCMessage;
}

const NEWLINE = 0x0a;

/** The id of a message that is not valid JSON-RPC, when one can be read off it. */
function readableId(value: unknown): RequestId | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * MCP over stdin/stdout, one JSON-RPC message a line, answering what the SDK's stdio transport
 * drops without a word: a line that is not JSON (`-32700`, id null), JSON that is not a JSON-RPC
 * message and an over-long line (`-32600`), a request with invalid params (`-32602`; the SDK would
 * answer `-32603` with its validator's report). A batch is served on a connection initialised
 * with a protocol version that has them (2025-03-26), answered with one array; elsewhere it is
 * refused (`-32600`). Closes when stdin ends.
 *
 * @example
 * ```ts
 * serveStdio(factory, { transport: createStdioTransport() });
 * ```
 */
export function createStdioTransport(options: StdioTransportOptions = {}): Transport {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const maxLineBytes = options.maxLineBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  const inbound = options.inbound ?? ((message: JSONRPCMessage) => message);
  let chunks: Buffer[] = [];
  let buffered = 0;
  let skipping = false;
  let closed = false;
  let version: string | undefined;

  const write = (message: unknown): Promise<void> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error('the stdio transport is closed'));
      if (stdout.write(`${JSON.stringify(message)}\n`)) return resolve();
      const onDrain = () => {
        stdout.off('error', onFail);
        resolve();
      };
      const onFail = (error: Error) => {
        stdout.off('drain', onDrain);
        reject(error);
      };
      stdout.once('drain', onDrain);
      stdout.once('error', onFail);
    });
  const answer = (message: unknown) => {
    if (!closed) write(message).catch((error: unknown) => transport.onerror?.(error as Error));
  };
  const batches = createStdioBatches(answer);

  /** A message to hand on, or the answer refusing it (params are checked on requests only: a notification gets no answer). */
  const check = (value: unknown): { message: JSONRPCMessage } | { refusal: JSONRPCMessage } => {
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      return {
        refusal: errorResponse(
          readableId(value),
          INVALID_REQUEST,
          'Invalid Request: not a JSON-RPC 2.0 message',
        ),
      };
    }
    const refusal = paramsRefusal(message, options.pagedLists);
    return refusal === undefined ? { message: inbound(message) } : { refusal };
  };
  const deliverBatch = (batch: unknown[]) => {
    const problem =
      version === undefined
        ? 'Invalid Request: JSON-RPC batches are served only after initialize with protocol version 2025-03-26'
        : batchRefusal(batch, version);
    if (problem !== undefined) return answer(batchRefusalResponse(problem));
    const answers: JSONRPCMessage[] = [];
    const pending: RequestId[] = [];
    const delivered: JSONRPCMessage[] = [];
    for (const value of batch) {
      const checked = check(value);
      if ('refusal' in checked) answers.push(checked.refusal);
      else {
        if (isWireRequest(checked.message)) pending.push(checked.message.id);
        delivered.push(checked.message);
      }
    }
    // Opened before delivery: an answer may come back while the rest is delivered.
    batches.open(answers, pending);
    for (const message of delivered) transport.onmessage?.(message);
  };
  const onLine = (line: string) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return answer(errorResponse(null, PARSE_ERROR, 'Parse error: the line is not JSON'));
    }
    if (Array.isArray(value)) return deliverBatch(value);
    const checked = check(value);
    if ('refusal' in checked) answer(checked.refusal);
    else transport.onmessage?.(checked.message);
  };
  const tooLong = () =>
    answer(
      errorResponse(null, INVALID_REQUEST, `Invalid Request: a message longer than ${maxLineBytes} bytes`),
    );
  const onData = (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const tail = chunk.subarray(start, end);
      if (skipping) skipping = false;
      else if (buffered + tail.length > maxLineBytes) tooLong();
      else
        onLine(
          Buffer.concat([...chunks, tail])
            .toString('utf8')
            .replace(/\r$/, ''),
        );
      chunks = [];
      buffered = 0;
      start = end + 1;
    }
    if (skipping || start === chunk.length) return;
    const rest = chunk.subarray(start);
    buffered += rest.length;
    if (buffered <= maxLineBytes) chunks.push(rest);
    else {
      // Refused once, and the rest of the line dropped as it arrives.
      chunks = [];
      buffered = 0;
      skipping = true;
      tooLong();
    }
  };
  const onError = (error: Error) => transport.onerror?.(error);
  const onEnd = () => {
    void transport.close();
  };
  // Writing failed (the client went away): nothing more can be answered.
  const onStdoutError = (error: Error) => {
    if (closed) return;
    transport.onerror?.(error);
    void transport.close();
  };

  const transport: Transport = {
    async start() {
      stdin.on('data', onData);
      stdin.on('error', onError);
      stdin.on('end', onEnd);
      stdin.on('close', onEnd);
      stdout.on('error', onStdoutError);
      if (stdin.readableEnded || stdin.destroyed) setImmediate(onEnd);
    },
    async send(message) {
      if (batches.take(message)) return;
      await write(message);
    },
    async close() {
      if (closed) return;
      closed = true;
      stdin.off('data', onData);
      stdin.off('error', onError);
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      stdout.off('error', onStdoutError);
      if (stdin.listenerCount('data') === 0) stdin.pause();
      transport.onclose?.();
    },
    setProtocolVersion(negotiated) {
      version = negotiated;
    },
  };
  return transport;
}
