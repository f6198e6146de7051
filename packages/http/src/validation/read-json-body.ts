import { cyrnelError, jsonShapeExceeds } from '@cyrnel/core';

/** Options of {@link readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Deepest nesting of arrays and objects accepted (400 beyond). */
  maxDepth: number;
  /** Most arrays, objects and comma-separated values accepted (400 beyond). */
  maxElements: number;
  /** Value used for an empty body; without it an empty body is refused. */
  emptyAs?: unknown;
}

/**
 * Parse a JSON request body whose size the route context has bounded already (hono's
 * `bodyLimit`, see `route-context.ts`). The nesting depth is
 * checked on the text before parsing, and so is the number of elements (parsing a body of
 * millions of tiny values would hold the event loop): nothing downstream (validators, JSON Patch, schema
 * checks, `JSON.stringify`) recurses into a value deeper than `maxDepth`, so a deeply nested
 * body is a 400 here and never a stack overflow (a 500) later.
 */
export async function readJsonBody(request: Request, options: ReadJsonBodyOptions): Promise<unknown> {
  // `text()` without looking at `body` first: on @hono/node-server that reads the socket's chunks
  // straight into one buffer, where `body` would build a web stream the text is then read from.
  const text = await request.text();
  if (text.trim() === '') {
    if (options.emptyAs !== undefined) return options.emptyAs;
    throw cyrnelError('invalid_request', 'a JSON request body is required');
  }
  const exceeded = jsonShapeExceeds(text, options);
  if (exceeded === 'depth') {
    throw cyrnelError(
      'invalid_request',
      `the JSON body is nested deeper than ${options.maxDepth} levels of arrays and objects`,
    );
  }
  if (exceeded === 'elements') {
    throw cyrnelError(
      'invalid_request',
      `the JSON body has more than ${options.maxElements} elements (arrays, objects and values in them)`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw cyrnelError('invalid_request', `malformed JSON body: ${(error as Error).message}`);
  }
}
