/** What a {@link MessageReader} hands on for each line of the stream. */
export interface LineHandlers {
  /**
   * One whole line (without its `\n`), at most the bound long, as the pieces it arrived in
   * (joined by the reader of a small line, by a worker for a large one: joining 16 MiB is a
   * 16 MiB copy). Each piece owns its memory (a stream chunk, or a copy of part of one), so the
   * pieces can be transferred to a worker.
   */
  line(pieces: Buffer[], bytes: number): void;
  /**
   * A line longer than the bound, skipped: only its first and last bytes were kept (enough for
   * the JSON-RPC `id`, which servers write first or last).
   */
  oversized(head: string, tail: string, bytes: number): void;
}

/** Newline-delimited messages read from a stream's chunks, each line bounded. */
export interface MessageReader {
  /** Take the next chunk and hand every line it completes on, in order. Never throws. */
  append(chunk: Buffer): void;
  /** Drop the unfinished line. */
  clear(): void;
}

/**
 * A piece the reader may keep and hand on: a whole chunk as it is (it owns its memory), a part
 * of one copied (the rest of the chunk belongs to other lines).
 */
function owned(piece: Buffer): Buffer {
  return piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength ? piece : Buffer.from(piece);
}

/** Bytes kept of the start and of the end of a line past the bound. */
const EDGE_BYTES = 512;

/**
 * A reader of MCP's stdio framing (one JSON-RPC message per line) in linear time: only the new
 * chunk is scanned, and a line is joined once, when it ends (the SDK's `ReadBuffer` copies and
 * scans everything buffered at every chunk). A line growing past `maxLineBytes` is not kept: the
 * reader skips to its end, keeping its first and last bytes, reports it as oversized and reads
 * the next line as usual, so one huge answer fails its own call and the connection stays.
 *
 * @example
 * ```ts
 * const reader = createMessageReader(16 * 1024 * 1024, { line: (pieces, bytes) => onLine(pieces), oversized });
 * child.stdout.on('data', (chunk) => reader.append(chunk));
 * ```
 */
export function createMessageReader(maxLineBytes: number, handlers: LineHandlers): MessageReader {
  let parts: Buffer[] = [];
  let size = 0;
  /** Set while skipping a line past the bound: its head, the last bytes seen, and its size. */
  let skipping: { head: string; tail: Buffer; bytes: number } | undefined;

  const clear = () => {
    parts = [];
    size = 0;
    skipping = undefined;
  };
  /** Take `piece` of the current line (no newline in it). */
  const take = (piece: Buffer) => {
    if (piece.length === 0) return;
    if (skipping) {
      skipping.bytes += piece.length;
      skipping.tail = Buffer.concat([skipping.tail, piece.subarray(-EDGE_BYTES)]).subarray(-EDGE_BYTES);
      return;
    }
    if (size + piece.length <= maxLineBytes) {
      parts.push(owned(piece));
      size += piece.length;
      return;
    }
    const whole = Buffer.concat([...parts, piece]);
    skipping = {
      head: whole.subarray(0, EDGE_BYTES).toString('utf8'),
      tail: Buffer.from(whole.subarray(-EDGE_BYTES)),
      bytes: whole.length,
    };
    parts = [];
    size = 0;
  };
  /** The current line ended. */
  const end = () => {
    if (skipping) {
      const { head, tail, bytes } = skipping;
      clear();
      handlers.oversized(head, tail.toString('utf8').replace(/\r$/, ''), bytes);
      return;
    }
    const pieces = parts;
    let bytes = size;
    clear();
    const last = pieces.at(-1);
    if (last?.at(-1) === 0x0d) {
      pieces[pieces.length - 1] = last.subarray(0, -1);
      bytes--;
    }
    if (bytes > 0) handlers.line(pieces, bytes);
  };

  return {
    append(chunk) {
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
        take(chunk.subarray(start, newline));
        end();
        start = newline + 1;
      }
      take(chunk.subarray(start));
    },
    clear,
  };
}
