import type { ProcessRecord } from '@cyrnel/sdk/api';
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { McpBackend } from './mcp-backend';
import {
  createStdoutProgress,
  STDOUT_PROGRESS_DEFAULTS,
  type StdoutProgressOptions,
} from './stdout-progress';
import { createTaskIds, type TaskIds } from './task-ids';
import { declaresTasks, TASKS_EXTENSION } from './task-request';
import type { TaskTiming } from './task-state';

/** Options of MCP tasks (`tasks` of `createCyrnelMcpServer`). */
export interface McpTasksOptions {
  /**
   * How long a task is kept after its creation, in ms, as clients are told (`ttl`); null: until
   * the process is deleted. Give the host's process retention. Default null.
   */
  readonly ttlMs?: number | null;
  /** The polling interval suggested to clients, in ms. Default 1,000. */
  readonly pollIntervalMs?: number;
  /**
   * How long a run is waited for before a 2026-07-28 client that declares the Tasks extension is
   * answered with a task instead of the result (the server decides there). Default 2,000 ms.
   */
  readonly taskAfterMs?: number;
  /** Bounds of stdout lines sent as progress (length, pace, backlog). */
  readonly progress?: Partial<StdoutProgressOptions>;
  /**
   * The key sealing task ids: every server a client may ask about its task needs the same one
   * (the hosts of one database; a bridge started again). Default: `requestStateKey`.
   */
  readonly idKey?: Uint8Array | string;
}

/** What the task handlers share, built once per server instance. */
export interface TaskService {
  readonly backend: McpBackend;
  readonly ids: TaskIds;
  readonly timing: TaskTiming;
  readonly taskAfterMs: number;
  readonly progress: StdoutProgressOptions;
  /** Text results are cut beyond this many characters. */
  readonly maxTextChars: number;
  /** The base of approval links for a request (the option, or the origin reached over HTTP). */
  serverUrl(ctx: ServerContext): string | undefined;
}

/**
 * The capabilities a server with tasks declares: the 2025-11-25 `tasks` (listing, cancelling,
 * task-augmented `tools/call`) and the 2026-07-28 Tasks extension. The SDK sends each revision
 * only its own (it drops `tasks` from 2026-07-28 answers).
 */
export const TASK_CAPABILITIES: ServerCapabilities = {
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  extensions: { [TASKS_EXTENSION]: {} },
};

/**
 * The task service of a server: ids sealed with `key` (the approval rounds' key, shared by every
 * instance that may serve the client's next request), the options' defaults applied once.
 *
 * @example
 * ```ts
 * const tasks = createTaskService(backend, { ttlMs: 7 * 86_400_000 }, { key, maxTextChars: 20_000, serverUrl: () => url });
 * ```
 */
export function createTaskService(
  backend: McpBackend,
  options: McpTasksOptions,
  server: {
    readonly key: Uint8Array | string | undefined;
    readonly maxTextChars: number;
    serverUrl(ctx: ServerContext): string | undefined;
  },
): TaskService {
  return {
    backend,
    ids: createTaskIds(server.key),
    timing: { ttlMs: options.ttlMs ?? null, pollIntervalMs: options.pollIntervalMs ?? 1_000 },
    taskAfterMs: options.taskAfterMs ?? 2_000,
    progress: { ...STDOUT_PROGRESS_DEFAULTS, ...options.progress },
    maxTextChars: server.maxTextChars,
    serverUrl: server.serverUrl,
  };
}

/** The error for a task id that is unknown, forged, gone or another caller's: the same for all. */
export const taskNotFound = (): ProtocolError =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');

const reasonOf = (error: unknown): unknown => (error as { reason?: unknown } | null)?.reason;

/**
 * The process of a task the caller owns. A task id nobody minted, a process that is gone or that
 * the caller may not read, and another key's process (an admin reads them, but they are not its
 * tasks) are all "not found": nothing tells another caller's task from none.
 */
export async function ownTask(service: TaskService, taskId: string): Promise<ProcessRecord> {
  const id = service.ids.processOf(taskId);
  if (id === undefined) throw taskNotFound();
  let record: ProcessRecord;
  try {
    record = await service.backend.processes.get(id);
  } catch (error) {
    if (reasonOf(error) === 'process_not_found') throw taskNotFound();
    throw error;
  }
  const { owner } = service.backend;
  if (owner !== undefined && record.keyId !== owner) throw taskNotFound();
  return record;
}

/** Refuse a 2026-07-28 task request of a client that did not declare the Tasks extension. */
export function requireTasksExtension(ctx: ServerContext): void {
  if (!declaresTasks(ctx))
    throw new MissingRequiredClientCapabilityError({
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
}

/** The request's own end: the client cancelled it or (over HTTP) went away. */
export function requestEnd(ctx: ServerContext): AbortSignal {
  const http = (ctx as { http?: { req?: Request } }).http?.req?.signal;
  return http ? AbortSignal.any([ctx.mcpReq.signal, http]) : ctx.mcpReq.signal;
}

/** What following a run reports. */
export interface RunFollowing {
  /** Progress notifications for stdout lines go to this token (none: stdout is not followed). */
  readonly progressToken?: string | number | undefined;
  /** Sends a notification on the request's stream; a rejection stops the following. */
  notify(notification: { method: string; params: Record<string, unknown> }): Promise<void>;
  /** Called after every change of the run's state (started, waits, goes on, ended). */
  onChange?(): void;
  /** Ends the following early. */
  readonly signal: AbortSignal;
}

/**
 * Follow a run until it exits: each stdout line becomes a progress notification (bounded and
 * paced, see `createStdoutProgress`), each change of state calls `onChange`. Best effort: a
 * notification that cannot be sent (the client went away) ends the following, and so does an
 * event stream that breaks.
 */
export async function followRun(service: TaskService, processId: number, following: RunFollowing) {
  const stop = new AbortController();
  const onEnd = () => stop.abort();
  following.signal.addEventListener('abort', onEnd, { once: true });
  const token = following.progressToken;
  const progress =
    token === undefined
      ? undefined
      : createStdoutProgress((value, message) => {
          following
            .notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress: value, message },
            })
            .catch(onEnd);
        }, service.progress);
  try {
    for await (const event of service.backend.processes.events(processId, stop.signal)) {
      if (event.type === 'stdout') progress?.push(event.data.text);
      else if (event.type !== 'stderr' && event.type !== 'output') following.onChange?.();
    }
  } catch {
    // The run's events could not be read: progress is a courtesy, the task itself is unaffected.
  } finally {
    progress?.end();
    following.signal.removeEventListener('abort', onEnd);
  }
}
