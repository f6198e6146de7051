import {
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
  type ServerContext,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import { type ProcessView, viewOf, viewResult } from './process-view';
import { legacyTask, modernTask, type TaskEra, type TaskStatus } from './task-state';
import { followRun, type TaskService } from './tasks';

/** The `_meta` key of the text a host may hand the model at once for a task it created. */
const IMMEDIATE_RESPONSE = 'io.modelcontextprotocol/model-immediate-response';

/** One `execute_typescript` call that the client lets become a task. */
export interface TaskStartInput {
  readonly era: TaskEra;
  readonly processId: number;
  /** Wait for the run as `execute_typescript` does (asking for its approval where it can), for at most `waitMs`. */
  waitOrAsk(waitMs: number): Promise<CallToolResult | InputRequiredResult>;
  /** The call's own `waitMs`. */
  readonly waitMs: number;
  /** Whether the request came over a connection that outlives it (stdio): notifications can follow the run. */
  readonly connection: boolean;
}

/**
 * Answer a call as a task. A result that is a task and a tool result at once: the task fields
 * for the client that asked for one (2025-11-25 `task`, 2026-07-28 `resultType: "task"` and the
 * task's fields), and the run's view as the tool answers it (`content`, `structuredContent`), which
 * is what the SDK's checks of a `tools/call` result look at. A 2025-11-25 client asked for a task
 * and gets one at once; a 2026-07-28 client gets the result when the run ends (or the approval
 * round) within `taskAfterMs`, and a task otherwise.
 *
 * @example
 * ```ts
 * return answerAsTask(tasks, ctx, { era, processId, waitMs, connection, waitOrAsk: (waitMs) => waitOrAsk(asking, ctx, { ...input, wait: { ...wait, waitMs } }) });
 * ```
 */
export async function answerAsTask(
  service: TaskService,
  ctx: ServerContext,
  input: TaskStartInput,
): Promise<CallToolResult | InputRequiredResult> {
  const { backend, ids, timing } = service;
  const { processId } = input;
  const serverUrl = service.serverUrl(ctx);
  const taskId = ids.mint(processId);
  if (input.era === 'modern') {
    const result = await input.waitOrAsk(Math.min(service.taskAfterMs, input.waitMs));
    if (isInputRequiredResult(result)) return result;
    const view = result.structuredContent as ProcessView | undefined;
    if (view === undefined || view.state === 'idle') return result;
    const record = await backend.processes.get(processId);
    // A waiting run is answered here only when its caller cannot be asked (else the round came first).
    return { ...result, resultType: 'task', ...modernTask(taskId, record, timing, serverUrl, false) };
  }
  const record = await backend.processes.get(processId);
  const view = await viewOf(backend, record, serverUrl);
  if (input.connection) followOnConnection(service, ctx, taskId, processId);
  const result = viewResult(view, service.maxTextChars);
  return {
    ...result,
    task: legacyTask(taskId, record, timing, serverUrl),
    _meta: {
      ...result._meta,
      [IMMEDIATE_RESPONSE]: `Process ${processId} runs as task ${taskId}; its result comes when the task completes (or call get_process with processId ${processId}).`,
    },
  };
}

/**
 * Over a connection (stdio), follow a 2025-11-25 task's run for the client: its stdout lines as
 * progress of the call's progress token, and `notifications/tasks/status` when its status changes.
 */
function followOnConnection(service: TaskService, ctx: ServerContext, taskId: string, processId: number) {
  const notify = (notification: { method: string; params: Record<string, unknown> }) =>
    ctx.mcpReq.notify(notification as ServerNotification);
  let last: TaskStatus = 'working';
  let looking = Promise.resolve();
  // One look at a time, in order: a slow answer never reports an older status after a newer one.
  const onChange = () => {
    looking = looking
      .then(async () => {
        const record = await service.backend.processes.get(processId);
        const task = legacyTask(taskId, record, service.timing, service.serverUrl(ctx));
        if (task.status === last) return;
        last = task.status;
        await notify({ method: 'notifications/tasks/status', params: { ...task } });
      })
      .catch(() => undefined);
  };
  void followRun(service, processId, {
    progressToken: ctx.mcpReq._meta?.progressToken,
    notify,
    onChange,
    // The run's end ends it, or the connection's (a notification that cannot be sent).
    signal: new AbortController().signal,
  });
}
