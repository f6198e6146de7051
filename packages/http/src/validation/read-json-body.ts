import { PayloadTooLargeError, ValidationError } from '@cyrnel/core';

/** Options of {@link readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Largest accepted body in bytes (413 beyond). */
  maxBytes: number;
  /** Value used for an empty body; without it an empty body is refused. */
  emptyAs?: unknown;
}

/**
 * Read and parse a JSON request body, counting bytes as they arrive so an oversized
 * chunked upload is cut off at the limit instead of buffered whole.
 */
export async function readJsonBody(request: Request, options: ReadJsonBodyOptions): Promise<unknown> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > options.maxBytes) throw tooLarge(options.maxBytes);
  const text = await readText(request, options.maxBytes);
  if (text.trim() === '') {
    if (options.emptyAs !== undefined) return options.emptyAs;
    throw new ValidationError('a JSON request body is required');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`malformed JSON body: ${(error as Error).message}`);
  }
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

function tooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`the request body is larger than ${maxBytes} bytes`);
}
