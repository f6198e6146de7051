import { deserializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';

/** Newline-delimited JSON-RPC messages read from a stream's chunks, each line bounded. */
export interface MessageReader {
  /**
   * Take the next chunk and hand every message it completes to `onMessage`, in order. Throws on
   * a line that is not a JSON-RPC message, or that grows past the bound without ending.
   */
  append(chunk: Buffer, onMessage: (message: JSONRPCMessage) => void): void;
  /** Drop the unfinished line. */
  clear(): void;
}

/**
 * A reader of MCP's stdio framing (one JSON-RPC message per line) in linear time: the SDK's
 * `ReadBuffer` copies and scans everything buffered at every chunk, so a server sending a
 * message near the bound made the host copy gigabytes on its main thread. Here only the new
 * chunk is scanned, and a line is joined once, when it ends.
 *
 * @example
 * ```ts
 * const reader = createMessageReader(16 * 1024 * 1024);
 * child.stdout.on('data', (chunk) => reader.append(chunk, (message) => transport.onmessage?.(message)));
 * ```
 */
export function createMessageReader(maxLineBytes: number): MessageReader {
  let parts: Buffer[] = [];
  let size = 0;
  const clear = () => {
    parts = [];
    size = 0;
  };
  const bounded = (more: number) => {
    if (size + more <= maxLineBytes) return;
    clear();
    throw new Error(`a message from the MCP server is larger than ${maxLineBytes} bytes`);
  };
  return {
    append(chunk, onMessage) {
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        const tail = chunk.subarray(start, end);
        bounded(tail.length);
        const line = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
        clear();
        start = end + 1;
        onMessage(deserializeMessage(line.toString('utf8').replace(/\r$/, '')));
      }
      const rest = chunk.subarray(start);
      bounded(rest.length);
      if (rest.length > 0) {
        parts.push(rest);
        size += rest.length;
      }
    },
    clear,
  };
}
