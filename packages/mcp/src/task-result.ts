import type { ProcessRecord, ProcessResult } from '@cyrnel/sdk/api';
import {
  type CallToolResult,
  RELATED_TASK_META_KEY,
  type ServerContext,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import { APPROVAL_INPUT, approvalRequest, decisionOf } from './approval-elicitation';
import { type ApprovalAsking, canAsk, decideApproval } from './approval-flow';
import { viewOf, viewResult } from './process-view';
import { sleep } from './sleep';
import { followRun, ownTask, requestEnd, type TaskService } from './tasks';

/** Forms asked through one `tasks/result` at most, as for one tool call. */
const MAX_ROUNDS = 5;
/** How long one wait on the run lasts before it is looked at again. */
const SETTLE_MS = 60_000;
/** How long the last stdout lines may take to reach the client before the result goes out. */
const DRAIN_MS = 1_000;

/**
 * `tasks/result` (2025-11-25): wait until the task's run ends and answer exactly what
 * `execute_typescript` answers for it, with the task named in `_meta`. While it waits, stdout
 * lines go out as progress when this request has a progress token, and over a connection where
 * the caller may decide approvals and the client answers forms, each approval the run waits for is
 * asked here (an `elicitation/create` of the task). Ending this request stops the wait, never the run.
 *
 * @example
 * ```ts
 * server.server.setRequestHandler('tasks/result', { params }, ({ taskId }, ctx) => taskResult(tasks, asking, ctx, taskId));
 * ```
 */
export async function taskResult(
  service: TaskService,
  asking: ApprovalAsking,
  ctx: ServerContext,
  taskId: string,
): Promise<CallToolResult> {
  const record = await ownTask(service, taskId);
  const signal = requestEnd(ctx);
  const token = ctx.mcpReq._meta?.progressToken;
  const stop = new AbortController();
  const following =
    token === undefined || record.state === 'idle'
      ? undefined
      : followRun(service, record.id, {
          progressToken: token,
          notify: (notification) => ctx.mcpReq.notify(notification as ServerNotification),
          signal: stop.signal,
        });
  let ended: ProcessRecord | ProcessResult;
  try {
    ended = await untilEnd(service, asking, ctx, taskId, record, signal);
    // The run's last lines go out before its result (the follower ends with the run's events).
    if (following) await Promise.race([following, sleep(DRAIN_MS, stop.signal)]);
  } finally {
    stop.abort();
  }
  const view = await viewOf(service.backend, ended, service.serverUrl(ctx));
  const result = viewResult(view, service.maxTextChars);
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/** Wait for the run's end through every approval it waits for; rejects when the request ends first. */
async function untilEnd(
  service: TaskService,
  asking: ApprovalAsking,
  ctx: ServerContext,
  taskId: string,
  record: ProcessRecord,
  signal: AbortSignal,
): Promise<ProcessRecord | ProcessResult> {
  const { backend } = service;
  if (record.state === 'idle') return record;
  let reported: string | undefined;
  let rounds = 0;
  for (;;) {
    const settled = await backend.processes.settle(record.id, {
      timeoutMs: SETTLE_MS,
      signal,
      reportedApproval: reported,
    });
    if (settled.state === 'idle') return settled;
    if (signal.aborted) throw new Error('tasks/result ended before the task did');
    const approvalId = settled.state === 'waiting' ? settled.approvalId : null;
    if (approvalId === null || approvalId === reported) continue;
    if (rounds < MAX_ROUNDS && canAsk(asking, ctx)) {
      rounds += 1;
      await askOnConnection(asking, ctx, taskId, record.id, approvalId);
    }
    reported = approvalId;
  }
}

/** Ask the person at the client to decide `approvalId` (a form of the task), and decide as the caller. */
async function askOnConnection(
  asking: ApprovalAsking,
  ctx: ServerContext,
  taskId: string,
  processId: number,
  approvalId: string,
): Promise<void> {
  const detail = await asking.backend.approvals?.get(approvalId);
  if (detail?.state !== 'pending') return;
  const { params } = approvalRequest(detail);
  const answer = await ctx.mcpReq.send({
    method: 'elicitation/create',
    params: { ...params, _meta: { [RELATED_TASK_META_KEY]: { taskId } } },
  });
  const decision = decisionOf({ [APPROVAL_INPUT]: answer });
  if (decision) await decideApproval(asking.backend, processId, approvalId, decision);
}
