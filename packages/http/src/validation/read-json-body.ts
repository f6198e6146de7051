import { jsonShapeExceeds, PayloadTooLargeError, ValidationError } from '@cyrnel/core';

/** Options of {@link readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Largest accepted body in bytes (413 beyond). */
  maxBytes: number;
  /** Deepest nesting of arrays and objects accepted (400 beyond). */
  maxDepth: number;
  /** Most arrays, objects and comma-separated values accepted (400 beyond). */
  maxElements: number;
  /** Value used for an empty body; without it an empty body is refused. */
  emptyAs?: unknown;
}

/**
 * Read and parse a JSON request body, counting bytes as they arrive so an oversized
 * chunked upload is cut off at the limit instead of buffered whole. The nesting depth is
 * checked on the text before parsing, and so is the number of elements (parsing a body of
 * millions of tiny values would hold the event loop): nothing downstream (validators, JSON Patch, schema
 * checks, `JSON.stringify`) recurses into a value deeper than `maxDepth`, so a deeply nested
 * body is a 400 here and never a stack overflow (a 500) later.
 */
export async function readJsonBody(request: Request, options: ReadJsonBodyOptions): Promise<unknown> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > options.maxBytes) throw tooLarge(options.maxBytes);
  const text = await readText(request, options.maxBytes);
  if (text.trim() === '') {
    if (options.emptyAs !== undefined) return options.emptyAs;
    throw new ValidationError('a JSON request body is required');
  }
  const exceeded = jsonShapeExceeds(text, options);
  if (exceeded === 'depth') {
    throw new ValidationError(
      `the JSON body is nested deeper than ${options.maxDepth} levels of arrays and objects`,
    );
  }
  if (exceeded === 'elements') {
    throw new ValidationError(
      `the JSON body has more than ${options.maxElements} elements (arrays, objects and values in them)`,
    );
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
