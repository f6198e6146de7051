import type { ProcessRecord } from '@cyrnel/sdk/api';
import { approvalPage } from './process-view';

/** A task's status, as both revisions of the protocol name them. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * Which protocol's tasks: `legacy` for 2025-11-25 (tasks in the core protocol, `tasks/result`,
 * `tasks/list`), `modern` for the Tasks extension of 2026-07-28 (`resultType: "task"`, results
 * inlined in `tasks/get`, `tasks/update`).
 */
export type TaskEra = 'legacy' | 'modern';

/** How long a server keeps tasks and how often it asks to be polled: the same for all its tasks. */
export interface TaskTiming {
  /** From creation, in ms, after which a task may be gone (null: kept until deleted). */
  readonly ttlMs: number | null;
  /** The polling interval suggested to clients, in ms. */
  readonly pollIntervalMs: number;
}

/** What of a process a task reports. */
export type TaskSource = Pick<
  ProcessRecord,
  'id' | 'state' | 'exitState' | 'error' | 'approvalId' | 'createdAt' | 'updatedAt'
>;

/** The fields every task carries, in the 2025-11-25 shape (a type literal: results are open objects). */
export type LegacyTask = {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttl: number | null;
  readonly pollInterval?: number;
};

/** The fields every task carries, in the 2026-07-28 extension's shape. */
export type ModernTask = {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
};

const MAX_ERROR_CHARS = 200;

/** Whether a status is final: the task never changes again. */
export const isTerminal = (status: TaskStatus): boolean =>
  status === 'completed' || status === 'failed' || status === 'cancelled';

/**
 * The status of a process's task. A run waiting for a person's approval needs input (unless
 * `asksClient` is false: nothing the client could answer, a person decides elsewhere); a run that
 * ended with a failure is `failed` for 2025-11-25 (its tool result is an error) but `completed`
 * for the 2026-07-28 extension, where `failed` means a JSON-RPC error and a tool error is a result.
 */
export function taskStatusOf(source: TaskSource, era: TaskEra, asksClient = true): TaskStatus {
  if (source.state === 'waiting') return asksClient ? 'input_required' : 'working';
  if (source.state !== 'idle') return 'working';
  if (source.exitState === 'canceled') return 'cancelled';
  if (era === 'modern' || source.exitState === 'success') return 'completed';
  return 'failed';
}

/** One line on where the run stands, for a person or a model (`serverUrl`: the base of approval links). */
export function statusMessageOf(source: TaskSource, serverUrl: string | undefined): string {
  const process = `Process ${source.id}`;
  if (source.state === 'waiting' && source.approvalId)
    return `${process} waits for approval ${source.approvalId}: a person approves or denies a tool call it made (in the admin UI: ${approvalPage(serverUrl, source.approvalId)}).`;
  if (source.state !== 'idle') return `${process} is ${source.state}.`;
  if (source.exitState === 'canceled') return `${process} was cancelled.`;
  const error = source.error ? ` (${source.error.slice(0, MAX_ERROR_CHARS)})` : '';
  return `${process} finished: ${source.exitState ?? 'never run'}${error}.`;
}

/** The task of a process in the 2025-11-25 shape (`tasks/get`, `tasks/list`, `notifications/tasks/status`). */
export function legacyTask(
  taskId: string,
  source: TaskSource,
  timing: TaskTiming,
  serverUrl: string | undefined,
): LegacyTask {
  const status = taskStatusOf(source, 'legacy');
  return {
    taskId,
    status,
    statusMessage: statusMessageOf(source, serverUrl),
    createdAt: source.createdAt,
    lastUpdatedAt: source.updatedAt,
    ttl: timing.ttlMs,
    ...(isTerminal(status) ? {} : { pollInterval: timing.pollIntervalMs }),
  };
}

/**
 * The task of a process in the 2026-07-28 shape, before its status-specific fields. There,
 * `input_required` lists what the client must answer: a run waiting for an approval is
 * `working` when the client is asked nothing (`asksClient` false).
 */
export function modernTask(
  taskId: string,
  source: TaskSource,
  timing: TaskTiming,
  serverUrl: string | undefined,
  asksClient: boolean,
): ModernTask {
  const status = taskStatusOf(source, 'modern', asksClient);
  return {
    taskId,
    status,
    statusMessage: statusMessageOf(source, serverUrl),
    createdAt: source.createdAt,
    lastUpdatedAt: source.updatedAt,
    ttlMs: timing.ttlMs,
    ...(isTerminal(status) ? {} : { pollIntervalMs: timing.pollIntervalMs }),
  };
}
