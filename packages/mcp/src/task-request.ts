import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isWireRequest } from './json-rpc';
import type { TaskEra } from './task-state';

/** The Tasks extension of 2026-07-28, as clients and servers name it in their capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Where a 2025-11-25 `tools/call`'s `params.task` travels to the tool's handler, which sees the
 * request's `_meta` but not its other params. Set only by {@link liftTaskRequest} at the edge.
 */
export const TASK_REQUEST_META = 'cyrnel/task';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A `tools/call` request as the server's handler should see it: a 2025-11-25 client's
 * `params.task` copied into `_meta` under {@link TASK_REQUEST_META}, and that key removed when a
 * client sent it itself. Anything else is returned as it is. Applied where messages enter (the
 * HTTP endpoint, the stdio transport) before the SDK reads them.
 *
 * @example
 * ```ts
 * liftTaskRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute_typescript', arguments, task: { ttl: 60_000 } } });
 * // params._meta['cyrnel/task'] = { ttl: 60000 }
 * ```
 */
export function liftTaskRequest<T>(message: T): T {
  if (!isWireRequest(message) || message.method !== 'tools/call' || !isObject(message.params)) return message;
  const params = message.params;
  const meta = isObject(params._meta) ? params._meta : undefined;
  // A 2026-07-28 request declares tasks in its envelope; `params.task` is no field of that revision.
  if (meta?.[PROTOCOL_VERSION_META_KEY] !== undefined) return message;
  const asked = isObject(params.task);
  if (!asked && (meta === undefined || !(TASK_REQUEST_META in meta))) return message;
  const { [TASK_REQUEST_META]: _sent, ...rest } = meta ?? {};
  const lifted = { ...rest, ...(asked ? { [TASK_REQUEST_META]: params.task } : {}) };
  return { ...message, params: { ...params, _meta: lifted } };
}

/** The client capabilities a 2026-07-28 request declares in its envelope, if it is one. */
function envelopeCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/** The protocol revision a request was served in: a 2026-07-28 request carries its envelope. */
export const eraOf = (ctx: ServerContext): TaskEra =>
  ctx.mcpReq.envelope === undefined ? 'legacy' : 'modern';

/** Whether a 2026-07-28 request declares the Tasks extension. */
export const declaresTasks = (ctx: ServerContext): boolean =>
  isObject(envelopeCapabilities(ctx)?.extensions?.[TASKS_EXTENSION]);

/**
 * Whether a `tools/call` may be answered with a task, and in which revision's shape: a
 * 2025-11-25 client asks with `params.task`; a 2026-07-28 client declares the extension and the
 * server decides.
 */
export function taskAsked(ctx: ServerContext): TaskEra | undefined {
  if (eraOf(ctx) === 'modern') return declaresTasks(ctx) ? 'modern' : undefined;
  return isObject(ctx.mcpReq._meta?.[TASK_REQUEST_META]) ? 'legacy' : undefined;
}
