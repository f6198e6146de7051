/** Accumulates one output stream of a process: UTF-8 reassembly and the size cap. */
export interface TextCapture {
  /** Append a chunk; answers the text that became visible (possibly empty). */
  write(chunk: string | Uint8Array): string;
  /** Flush a dangling partial sequence; answers the text that became visible. */
  end(): string;
  /** Everything kept so far. */
  text(): string;
  /** UTF-8 bytes of `text()` (the truncation marker included). */
  bytes(): number;
}

/** Options of {@link createTextCapture}. */
export interface TextCaptureOptions {
  /** Stream name used in the truncation marker. */
  readonly name: string;
  /** Bytes kept before truncating. */
  readonly maxBytes: number;
}

const encoder = new TextEncoder();

/** Longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  let end = maxBytes;
  // Step back over continuation bytes so the cut lands on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** Create a capture; byte chunks go through one streaming TextDecoder so split sequences join. */
export function createTextCapture(options: TextCaptureOptions): TextCapture {
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  let bytes = 0;
  /** Bytes of the text once truncated (the cut and the marker), else `bytes`. */
  let keptBytes = -1;
  let truncated = false;
  let pendingBytes = false;

  const keep = (text: string): string => {
    if (truncated || text === '') return '';
    const size = text.length * 3 <= options.maxBytes - bytes ? -1 : Buffer.byteLength(text);
    if (size === -1 || bytes + size <= options.maxBytes) {
      bytes += size === -1 ? Buffer.byteLength(text) : size;
      parts.push(text);
      return text;
    }
    truncated = true;
    const kept = `${utf8Prefix(text, options.maxBytes - bytes)}\n[cyrnel: ${options.name} truncated at ${options.maxBytes} bytes]\n`;
    parts.push(kept);
    keptBytes = bytes + Buffer.byteLength(kept);
    return kept;
  };

  return {
    write(chunk) {
      if (typeof chunk === 'string') {
        // A string after raw bytes: flush the partial sequence (as U+FFFD) to keep order.
        const flushed = pendingBytes ? decoder.decode() : '';
        pendingBytes = false;
        return keep(flushed + chunk);
      }
      pendingBytes = true;
      return keep(decoder.decode(chunk, { stream: true }));
    },
    end() {
      if (!pendingBytes) return '';
      pendingBytes = false;
      return keep(decoder.decode());
    },
    text: () => (parts.length === 1 ? (parts[0] ?? '') : parts.join('')),
    bytes: () => (keptBytes === -1 ? bytes : keptBytes),
  };
}
