/** One dispatched Server-Sent Event. */
export interface SseMessage {
  /** The `event:` field, `message` when absent. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last `id:` seen, if any. */
  id: string | undefined;
  /** A `retry:` reconnection delay in milliseconds, when the server sent one. */
  retry: number | undefined;
}

/**
 * Parse a `text/event-stream` body per the WHATWG algorithm: lines end with CRLF, LF or CR,
 * `:` lines are comments (heartbeats), a blank line dispatches, events without data are dropped.
 * Chunk boundaries may fall anywhere, including inside a UTF-8 sequence or a CRLF pair.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  let skipLf = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const char = buffer[i];
        if (skipLf) {
          skipLf = false;
          if (char === '\n') {
            start = i + 1;
            continue;
          }
        }
        if (char !== '\n' && char !== '\r') continue;
        const line = buffer.slice(start, i);
        start = i + 1;
        skipLf = char === '\r';
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id, retry };
          event = '';
          data = [];
          retry = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id' && !value.includes('\0')) id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
      }
      buffer = buffer.slice(start);
      // An unterminated last event is discarded, as the standard says.
      if (done) return;
    }
  } finally {
    // Frees the connection when the consumer stops early; harmless after the end.
    await reader.cancel().catch(() => {});
  }
}
