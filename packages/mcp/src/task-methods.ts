import type { ProcessRecord } from '@cyrnel/sdk/api';
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { approvalRequest, decisionOf } from './approval-elicitation';
import { type ApprovalAsking, canAsk, decideApproval } from './approval-flow';
import { viewOf, viewResult } from './process-view';
import { eraOf } from './task-request';
import { taskResult } from './task-result';
import { isTerminal, legacyTask, modernTask, taskStatusOf } from './task-state';
import { ownTask, requestEnd, requireTasksExtension, type TaskService } from './tasks';

const TASK_PARAMS = z.looseObject({ taskId: z.string().max(200) });
const LIST_PARAMS = z.looseObject({ cursor: z.string().max(1_000).optional() });

/** Tasks in one `tasks/list` page. */
const PAGE_SIZE = 50;
/** How long `tasks/cancel` (2025-11-25) waits for the killed run to be recorded cancelled. */
const CANCEL_WAIT_MS = 10_000;

/**
 * The key of the input request asking a person to decide an approval: one per approval, so a key
 * is never reused over a task's life (a run may wait for several).
 */
export const approvalInputKey = (approvalId: string): string => `approval-${approvalId}`;

/**
 * Register the task methods on a server with tasks: `tasks/get` and `tasks/cancel` of both
 * revisions (each answered in its revision's shape), `tasks/result` and `tasks/list` of 2025-11-25
 * (the SDK refuses them on 2026-07-28 requests) and `tasks/update` of the 2026-07-28 extension.
 * Every one acts only on the caller's own tasks; another's is "not found".
 *
 * @example
 * ```ts
 * registerTaskMethods(server, createTaskService(backend, {}, { key, maxTextChars, serverUrl }), asking);
 * ```
 */
export function registerTaskMethods(server: McpServer, service: TaskService, asking: ApprovalAsking): void {
  const low = server.server;
  low.setRequestHandler('tasks/get', { params: TASK_PARAMS }, ({ taskId }, ctx) =>
    getTask(service, asking, ctx, taskId),
  );
  low.setRequestHandler('tasks/result', { params: TASK_PARAMS }, ({ taskId }, ctx) =>
    taskResult(service, asking, ctx, taskId),
  );
  low.setRequestHandler('tasks/list', { params: LIST_PARAMS }, ({ cursor }, ctx) =>
    listTasks(service, ctx, cursor),
  );
  low.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, ({ taskId }, ctx) =>
    cancelTask(service, ctx, taskId),
  );
  // The SDK lifts `inputResponses` off the params, as for any retried request: they are on ctx.
  low.setRequestHandler('tasks/update', { params: TASK_PARAMS }, ({ taskId }, ctx) =>
    updateTask(service, ctx, taskId, ctx.mcpReq.inputResponses),
  );
}

/** `tasks/get`: the task (2025-11-25), or the task with its result or the input it needs (2026-07-28). */
async function getTask(service: TaskService, asking: ApprovalAsking, ctx: ServerContext, taskId: string) {
  const legacy = eraOf(ctx) === 'legacy';
  if (!legacy) requireTasksExtension(ctx);
  const record = await ownTask(service, taskId);
  const serverUrl = service.serverUrl(ctx);
  if (legacy) return legacyTask(taskId, record, service.timing, serverUrl);
  if (record.state === 'idle') {
    const task = modernTask(taskId, record, service.timing, serverUrl, true);
    if (task.status === 'cancelled') return task;
    const view = await viewOf(service.backend, record, serverUrl);
    return { ...task, result: viewResult(view, service.maxTextChars) };
  }
  const form = await approvalForm(asking, ctx, record);
  const task = modernTask(taskId, record, service.timing, serverUrl, form !== undefined);
  return form === undefined ? task : { ...task, inputRequests: form };
}

/** The form asking the client's person to decide the approval the run waits for, when this caller may. */
async function approvalForm(asking: ApprovalAsking, ctx: ServerContext, record: ProcessRecord) {
  const { approvals } = asking.backend;
  if (record.state !== 'waiting' || !record.approvalId || !approvals || !canAsk(asking, ctx))
    return undefined;
  const detail = await approvals.get(record.approvalId);
  if (detail.state !== 'pending') return undefined;
  return { [approvalInputKey(detail.id)]: approvalRequest(detail) };
}

/** `tasks/list` (2025-11-25): a page of the caller's own tasks, newest first. */
async function listTasks(service: TaskService, ctx: ServerContext, cursor: string | undefined) {
  const { backend } = service;
  const { owner } = backend;
  let page: Awaited<ReturnType<typeof backend.processes.list>>;
  try {
    page = await backend.processes.list({
      limit: PAGE_SIZE,
      ...(cursor === undefined ? {} : { cursor }),
      ...(typeof owner === 'string' ? { keyId: owner } : {}),
    });
  } catch (error) {
    if (cursor !== undefined && (error as { status?: unknown } | null)?.status === 400)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
    throw error;
  }
  // No filter names "no key": the bootstrap key's own tasks are picked from the page.
  const items = owner === null ? page.items.filter((item) => item.keyId === null) : page.items;
  const serverUrl = service.serverUrl(ctx);
  return {
    tasks: items.map((item) => legacyTask(service.ids.mint(item.id), item, service.timing, serverUrl)),
    ...(page.nextCursor === null ? {} : { nextCursor: page.nextCursor }),
  };
}

/**
 * `tasks/cancel`: kill the run. 2025-11-25 answers the task once its run is recorded cancelled
 * and refuses a task that already ended; 2026-07-28 acknowledges at once (cancelling is
 * cooperative there, and an ended task stays as it ended).
 */
async function cancelTask(service: TaskService, ctx: ServerContext, taskId: string): Promise<Result> {
  const legacy = eraOf(ctx) === 'legacy';
  if (!legacy) requireTasksExtension(ctx);
  const record = await ownTask(service, taskId);
  const { backend } = service;
  const status = taskStatusOf(record, 'legacy');
  if (legacy && isTerminal(status))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Cannot cancel task: already in terminal status '${status}'`,
    );
  if (record.state !== 'idle') await killLive(service, record.id);
  if (!legacy) return {};
  await backend.processes.settle(record.id, {
    timeoutMs: CANCEL_WAIT_MS,
    signal: requestEnd(ctx),
    // A run killed while it waits for an approval is still waiting until the kill lands.
    reportedApproval: record.approvalId ?? undefined,
  });
  const ended = await backend.processes.get(record.id);
  return { ...legacyTask(taskId, ended, service.timing, service.serverUrl(ctx)) };
}

/** Kill a run that may have ended meanwhile (then there is nothing to kill). */
async function killLive(service: TaskService, processId: number): Promise<void> {
  try {
    await service.backend.processes.kill(processId);
  } catch (error) {
    if ((error as { reason?: unknown } | null)?.reason !== 'process_not_running') throw error;
  }
}

/**
 * `tasks/update` (2026-07-28): the person's answer to the approval form of `tasks/get`, decided as
 * the caller. Answers to anything else (an approval no longer waited for, an unknown key) are
 * ignored, as the extension asks.
 */
async function updateTask(
  service: TaskService,
  ctx: ServerContext,
  taskId: string,
  inputResponses: Record<string, unknown> | undefined,
): Promise<Result> {
  if (eraOf(ctx) === 'legacy') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
  requireTasksExtension(ctx);
  const record = await ownTask(service, taskId);
  const { backend } = service;
  if (record.state !== 'waiting' || !record.approvalId || !backend.approvals) return {};
  const decision = decisionOf(inputResponses, approvalInputKey(record.approvalId));
  if (decision) await decideApproval(backend, record.id, record.approvalId, decision);
  return {};
}
