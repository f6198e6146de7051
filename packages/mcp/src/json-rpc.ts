import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  type JSONRPCErrorResponse,
  type RequestId,
} from '@modelcontextprotocol/server';
import { invalidParams } from './request-params';

/** A JSON-RPC request as read off the wire: a method and a string or number id. */
export interface WireRequest {
  readonly method: string;
  readonly id: RequestId;
  readonly params?: unknown;
}

/** Whether `value` has the shape of a JSON-RPC request (a method, a string or number id). */
export function isWireRequest(value: unknown): value is WireRequest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { method, id } = value as { method?: unknown; id?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number');
}

/** Whether `value` is a notification of `method` (a method and no id). */
export function isNotificationOf(value: unknown, method: string): value is { params?: unknown } {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    (value as { method?: unknown }).method === method &&
    !('id' in value)
  );
}

/** A JSON-RPC error response. */
export function errorResponse(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // The protocol's type leaves the id out of errors without one; on the wire it is null.
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCErrorResponse;
}

/** The `-32602` answer to a request whose params are invalid, or undefined when they are valid. */
export function paramsRefusal(
  message: unknown,
  pagedLists?: ReadonlySet<string>,
): JSONRPCErrorResponse | undefined {
  if (!isWireRequest(message)) return undefined;
  const problem = invalidParams(message, pagedLists);
  return problem === undefined ? undefined : errorResponse(message.id, INVALID_PARAMS, problem);
}

/** The protocol versions in which a message may be a JSON-RPC batch (2025-06-18 removed them). */
const BATCHING_VERSIONS: ReadonlySet<string> = new Set(['2024-11-05', '2025-03-26']);

/** A protocol version as the protocol writes them: only such a value is repeated in a refusal. */
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Why a batch (a JSON array of messages) is refused under `version` (the negotiated protocol
 * version; undefined when the client named none, which over HTTP means 2025-03-26), or undefined
 * when it may be served.
 *
 * @example
 * ```ts
 * batchRefusal([{ jsonrpc: '2.0', id: 1, method: 'ping' }], '2025-06-18');
 * // 'Invalid Request: JSON-RPC batches are not supported in protocol version 2025-06-18'
 * ```
 */
export function batchRefusal(batch: readonly unknown[], version: string | undefined): string | undefined {
  if (batch.length === 0) return 'Invalid Request: an empty batch';
  if (version !== undefined && !BATCHING_VERSIONS.has(version))
    return `Invalid Request: JSON-RPC batches are not supported in protocol version ${DATE.test(version) ? version : 'of this request'}`;
  // Nothing else can be sent before the connection is initialised, so neither may be batched.
  if (batch.some((message) => isWireRequest(message) && message.method === 'initialize'))
    return 'Invalid Request: initialize may not be part of a batch';
  return undefined;
}

/** The `-32600` answer refusing a whole batch. */
export function batchRefusalResponse(problem: string): JSONRPCErrorResponse {
  return errorResponse(null, INVALID_REQUEST, problem);
}
