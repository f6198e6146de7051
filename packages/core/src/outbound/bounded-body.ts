import type { IncomingMessage } from 'node:http';
import { isCyrnelError } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';

/**
 * Read a response's body up to `maxBytes`: past it (declared or counted), the response is
 * destroyed and the read fails with `tooLarge()`; a broken or aborted stream fails with
 * `translate(error)`. Downloads of definitions and requests to authorization servers read
 * their answers this way, so no remote server can make the host hold more than it allows.
 *
 * @example
 * ```ts
 * const bytes = await readBoundedBody(response, 1 << 20, () => cyrnelError('upstream_failed', 'too large'), (e) => e);
 * ```
 */
export function readBoundedBody(
  response: IncomingMessage,
  maxBytes: number,
  tooLarge: () => Error,
  translate: (error: unknown) => Error,
): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      response.destroy();
      reject(error);
    };
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) fail(tooLarge());
      else chunks.push(chunk);
    });
    response.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
    response.on('error', (error) => fail(translate(error)));
    response.on('aborted', () => fail(translate(new Error('connection aborted'))));
  });
}

/** The outbound policy's refusal as a 403 `outbound_refused`, whatever kind of `Error` it threw. */
export function outboundRefusal(error: unknown): Error {
  if (isCyrnelError(error)) return error;
  return cyrnelError('outbound_refused', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}
