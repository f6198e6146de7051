import { isJsonContentType } from '@modelcontextprotocol/server';
import { readJsonBody, refuseBody } from './http-body';
import { createHttpCancellations } from './http-cancellations';
import { isNotificationOf, isWireRequest } from './json-rpc';

/** Answers one request through the SDK's handler, with its body when it was read already. */
export type SdkFetch<Caller> = (request: Request, caller: Caller, body?: unknown) => Promise<Response>;

/** Options of {@link createMcpHttpFront}. */
export interface McpHttpFrontOptions<Caller> {
  /** Largest request body in bytes it reads itself (413 beyond). */
  readonly maxBytes: number;
  /**
   * Who the caller is (its key): a `notifications/cancelled` cancels the caller's own request of
   * that id, never another's. Without it no cancellation sent in a request of its own is matched.
   */
  readonly identity?: ((caller: Caller) => string) | undefined;
  /** The lists the server pages (their cursors are its own to check); a cursor of any other is `-32602`. */
  readonly pagedLists?: ReadonlySet<string>;
}

/**
 * What every cyrnel MCP endpoint does before an SDK instance sees a POST (`/mcp` and
 * `/mcp/tools` alike): invalid params answered `-32602`, batches where the protocol version has
 * none `-32600`, and a `notifications/cancelled` sent in a request of its own (2025-era stateless
 * HTTP) cancelling the caller's tool call of that id. Other methods, and bodies that are not JSON,
 * are the SDK's to answer.
 *
 * @example
 * ```ts
 * const fetch = createMcpHttpFront(sdkFetch, { maxBytes, identity: (caller) => caller.keyId });
 * app.all('/mcp', (c) => fetch(c.req.raw, c.get('caller')));
 * ```
 */
export function createMcpHttpFront<Caller>(
  sdkFetch: SdkFetch<Caller>,
  options: McpHttpFrontOptions<Caller>,
): (request: Request, caller: Caller, parsedBody?: unknown) => Promise<Response> {
  const cancellations = createHttpCancellations();
  return async (request, caller, parsedBody) => {
    if (request.method !== 'POST' || !isJsonContentType(request.headers.get('content-type')))
      return sdkFetch(request, caller, parsedBody);
    let body = parsedBody;
    if (body === undefined) {
      const read = await readJsonBody(request, options.maxBytes);
      if ('refused' in read) return read.refused;
      body = read.body;
    }
    const version = request.headers.get('mcp-protocol-version') ?? undefined;
    const refused = refuseBody(body, version, options.pagedLists);
    if (refused) return refused;
    const who = options.identity?.(caller);
    if (who === undefined) return sdkFetch(request, caller, body);
    for (const message of Array.isArray(body) ? body : [body])
      if (isNotificationOf(message, 'notifications/cancelled'))
        cancellations.cancel(who, (message.params as { requestId?: unknown } | undefined)?.requestId);
    // Only a tool call runs long enough, and does enough, to be worth cancelling.
    if (!isWireRequest(body) || body.method !== 'tools/call') return sdkFetch(request, caller, body);
    const tracked = cancellations.track(who, body.id, request);
    try {
      return tracked.through(await sdkFetch(tracked.request, caller, body));
    } catch (error) {
      tracked.done();
      throw error;
    }
  };
}
