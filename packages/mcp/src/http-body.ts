import { INVALID_REQUEST, PARSE_ERROR, readRequestBody } from '@modelcontextprotocol/server';
import { batchRefusal, batchRefusalResponse, errorResponse, isWireRequest, paramsRefusal } from './json-rpc';

/** A POST body read and parsed, or the answer refusing it. */
export type ReadBody = { readonly body: unknown } | { readonly refused: Response };

/**
 * Read and parse a POST body of at most `maxBytes` (the SDK would read it otherwise; it is needed
 * here first, to refuse what the SDK would serve wrongly): 413 beyond, `-32700` when not JSON.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<ReadBody> {
  const read = await readRequestBody(request, maxBytes).catch(() => undefined);
  if (read === undefined)
    return {
      refused: rpcResponse(400, errorResponse(null, PARSE_ERROR, 'Parse error: the body could not be read')),
    };
  if (read.tooLarge)
    return {
      refused: rpcResponse(
        413,
        errorResponse(null, -32000, `the request body is larger than ${maxBytes} bytes`),
      ),
    };
  try {
    return { body: JSON.parse(read.text) };
  } catch {
    return {
      refused: rpcResponse(400, errorResponse(null, PARSE_ERROR, 'Parse error: the body is not JSON')),
    };
  }
}

/**
 * The answer refusing a body before any server instance sees it, or undefined to serve it:
 * - a batch under a protocol version without batches (2025-06-18 and later; a request without
 *   `MCP-Protocol-Version` is a 2025-03-26 client's, which may batch), an empty one, or one holding
 *   `initialize`: `-32600`, HTTP 400;
 * - a request whose params are invalid: `-32602` with one line (HTTP 200, as the SDK answers a
 *   handler's error); in a batch, every request of it is answered, those not run with `-32600`.
 *   A cursor is invalid for a list the server does not page (`pagedLists`).
 *
 * @example
 * ```ts
 * const refused = refuseBody(body, request.headers.get('mcp-protocol-version') ?? undefined);
 * if (refused) return refused;
 * ```
 */
export function refuseBody(
  body: unknown,
  protocolVersion: string | undefined,
  pagedLists?: ReadonlySet<string>,
): Response | undefined {
  if (!Array.isArray(body)) {
    const refusal = paramsRefusal(body, pagedLists);
    return refusal === undefined ? undefined : rpcResponse(200, refusal);
  }
  const problem = batchRefusal(body, protocolVersion);
  if (problem !== undefined) return rpcResponse(400, batchRefusalResponse(problem));
  const refusals = body.map((message) => paramsRefusal(message, pagedLists));
  if (refusals.every((refusal) => refusal === undefined)) return undefined;
  // A batch is served whole or not at all: its valid requests are answered as not run.
  const answers = body.flatMap((message, index) => {
    const refusal = refusals[index];
    if (refusal !== undefined) return [refusal];
    return isWireRequest(message)
      ? [
          errorResponse(
            message.id,
            INVALID_REQUEST,
            'Invalid Request: not run, another request of its batch is invalid',
          ),
        ]
      : [];
  });
  return rpcResponse(200, answers);
}

function rpcResponse(status: number, body: unknown): Response {
  return Response.json(body, { status });
}
