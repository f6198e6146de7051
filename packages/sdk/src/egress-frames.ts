/**
 * The frames of an egress channel (`EgressChannel`): each is a 4-byte big-endian length of the
 * rest, a 4-byte big-endian length of the header, the header as UTF-8 JSON, then the body bytes.
 * A request's header is an {@link EgressRequest} (the first frame of a connection is
 * `{ token }` instead); an answer's header is an {@link EgressAnswer}, and a successful answer's
 * body is the result as JSON text, so it is parsed once, where it is used.
 */

/** One tool call a sandbox process asks the gateway for. */
export interface EgressRequest {
  /** Unique per connection; the answer names it again. */
  readonly id: number;
  /** The execution the call is made for (it must be granted to the channel). */
  readonly eid: number;
  readonly serviceId: string;
  readonly toolId: string;
  readonly parameters: Record<string, unknown>;
  /** The connection the code named (absent: the process's own); the host checks it. */
  readonly connection?: string;
}

/** The gateway's answer to one {@link EgressRequest} (or, with id 0, to the token). */
export type EgressAnswer =
  | { readonly id: number; readonly ok: true }
  | {
      readonly id: number;
      readonly ok: false;
      readonly error: {
        readonly status: number;
        readonly code: string;
        readonly reason: string;
        readonly message: string;
      };
    }
  /**
   * Not a portable adapter's callable tool: make the call through the host's gate. With
   * `unprepared`, the gateway makes no call of this tool (with this connection) until the catalog
   * changes (an adapter that is not portable, such as `mcp`; a tool unknown or disabled): a client
   * may send the tool's later calls of the same execution to the host's gate directly.
   */
  | { readonly id: number; readonly host: true; readonly unprepared?: true };

/** Bytes before a frame's header. */
const HEAD = 8;

/**
 * Encode one frame.
 *
 * @example
 * ```ts
 * socket.write(encodeEgressFrame({ token }));
 * socket.write(encodeEgressFrame({ id: 1, ok: true }, '{"status":200}'));
 * ```
 */
export function encodeEgressFrame(header: unknown, body?: string | Uint8Array): Buffer {
  const head = Buffer.from(JSON.stringify(header));
  const tail = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
  const frame = Buffer.allocUnsafe(HEAD + head.length);
  frame.writeUInt32BE(4 + head.length + (tail?.length ?? 0), 0);
  frame.writeUInt32BE(head.length, 4);
  head.copy(frame, HEAD);
  return tail ? Buffer.concat([frame, tail]) : frame;
}

/**
 * A decoder of a byte stream of frames: feed it every chunk; it calls `onFrame` with each whole
 * frame's parsed header and its body, and `onError` once (then ignores the rest) for a frame past
 * `maxBytes` or one whose header is not JSON.
 *
 * @example
 * ```ts
 * socket.on('data', createEgressFrameReader(64 << 20, (header, body) => handle(header, body), close));
 * ```
 */
export function createEgressFrameReader(
  maxBytes: number,
  onFrame: (header: unknown, body: Buffer) => void,
  onError: (message: string) => void,
): (chunk: Buffer) => void {
  let chunks: Buffer[] = [];
  let held = 0;
  let failed = false;
  const fail = (message: string) => {
    failed = true;
    chunks = [];
    onError(message);
  };
  return (chunk) => {
    if (failed) return;
    chunks.push(chunk);
    held += chunk.length;
    while (held >= 4) {
      if ((chunks[0] as Buffer).length < 4) chunks = [Buffer.concat(chunks)];
      const first = chunks[0] as Buffer;
      const length = first.readUInt32BE(0);
      if (length > maxBytes + 4) return fail(`an egress frame is larger than ${maxBytes} bytes`);
      if (length < 4) return fail('an egress frame is shorter than its header length');
      if (held < 4 + length) return;
      const all = chunks.length === 1 ? first : Buffer.concat(chunks);
      const headLength = all.readUInt32BE(4);
      if (headLength > length - 4) return fail('an egress frame header is longer than its frame');
      let header: unknown;
      try {
        header = JSON.parse(all.toString('utf8', HEAD, HEAD + headLength));
      } catch {
        return fail('an egress frame header is not JSON');
      }
      const body = all.subarray(HEAD + headLength, 4 + length);
      const rest = all.subarray(4 + length);
      chunks = rest.length > 0 ? [rest] : [];
      held = rest.length;
      onFrame(header, body);
      if (failed) return;
    }
  };
}
