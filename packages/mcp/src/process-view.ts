import type { ExecutionExitState, ProcessState } from '@cyrnel/sdk';
import type { ProcessRecord, ProcessResult, ToolCallRecord } from '@cyrnel/sdk/api';
import { EFFICIENCY_META, type EfficiencyMeta, efficiencyMeta } from './efficiency-meta';
import type { McpBackend } from './mcp-backend';

/** A process as the MCP tools report it. */
export interface ProcessView {
  readonly processId: number;
  readonly state: ProcessState;
  readonly exitState: ExecutionExitState | null;
  readonly error: string | null;
  /** What the code passed to `cyrnel.output()`: whole once idle, so far while it waits for an approval. */
  readonly output: Record<string, unknown>;
  readonly stdout: string;
  readonly stderr: string;
  /** The approval the run waits for (state `waiting`), or null. */
  readonly approvalId: string | null;
  /** Where a person approves or denies it: the admin UI's page, or its path when the server's URL is unknown. */
  readonly approvalUrl: string | null;
  /** The calls made so far, each with how the policies decided it (allowed, approved, denied…). */
  readonly toolCalls: readonly Pick<
    ToolCallRecord,
    'serviceId' | 'toolId' | 'ok' | 'durationMs' | 'errorReason' | 'decision'
  >[];
  /**
   * The run's efficiency meter once it ended. Not part of what the model reads (text and
   * structured content): {@link viewResult} puts it in `_meta` under `cyrnel/efficiency`.
   */
  readonly efficiency?: EfficiencyMeta;
}

/** The admin UI's page of an approval, below `base` (the server's URL), or its path alone. */
export function approvalPage(base: string | undefined, approvalId: string): string {
  return `${base?.replace(/\/+$/, '') ?? ''}/ui/approvals/${encodeURIComponent(approvalId)}`;
}

/**
 * Results of a process: from a record that carries them (a wait's answer, so far while it
 * waits), read once it is idle, empty otherwise.
 */
async function resultsOf(
  backend: McpBackend,
  record: ProcessRecord | ProcessResult,
): Promise<Pick<ProcessView, 'output' | 'stdout' | 'stderr'>> {
  // A copy: a run in memory answers with its live output, which merges later `cyrnel.output()` calls.
  if ('output' in record)
    return { output: { ...record.output }, stdout: record.stdout, stderr: record.stderr };
  if (record.state !== 'idle') return { output: {}, stdout: '', stderr: '' };
  const { processes } = backend;
  const [output, stdout, stderr] = await Promise.all([
    processes.output(record.id),
    processes.stdout(record.id),
    processes.stderr(record.id),
  ]);
  return { output, stdout, stderr };
}

/**
 * The view of a process: its record, its results (once idle), the tool calls it made with their
 * decisions, and where its approval is decided (`serverUrl`: the base of the admin UI's link).
 */
export async function viewOf(
  backend: McpBackend,
  record: ProcessRecord | ProcessResult,
  serverUrl?: string,
): Promise<ProcessView> {
  const [results, calls] = await Promise.all([
    resultsOf(backend, record),
    backend.processes.calls(record.id),
  ]);
  const approvalId = record.state === 'waiting' ? (record.approvalId ?? null) : null;
  return {
    processId: record.id,
    state: record.state,
    exitState: record.exitState,
    error: record.error,
    ...results,
    approvalId,
    approvalUrl: approvalId === null ? null : approvalPage(serverUrl, approvalId),
    ...(record.state === 'idle' ? withEfficiency(record.metrics) : {}),
    toolCalls: calls.map(({ serviceId, toolId, ok, durationMs, errorReason, decision }) => ({
      serviceId,
      toolId,
      ok,
      durationMs,
      errorReason,
      decision: decision ?? null,
    })),
  };
}

/** The view's `efficiency` field of `metrics`, when there are any. */
function withEfficiency(metrics: ProcessRecord['metrics'] | undefined): Pick<ProcessView, 'efficiency'> {
  const efficiency = efficiencyMeta(metrics);
  return efficiency ? { efficiency } : {};
}

/** The first line a model reads: how the process stands and what to do next. */
function headOf(view: ProcessView): string {
  const id = view.processId;
  if (view.state === 'idle')
    return `Process ${id} finished: ${view.exitState}${view.error ? ` (${view.error})` : ''}.`;
  if (view.state === 'waiting')
    return `Process ${id} waits for approval ${view.approvalId}: a person must approve or deny a tool call it made before it goes on (in the admin UI: ${view.approvalUrl}, or POST /approvals/${view.approvalId} with an approver key). Tell the user, then call wait_process with processId ${id} to wait for its result.`;
  return `Process ${id} is still ${view.state}. Call get_process with processId ${id} to wait for its result.`;
}

/** The text a model reads for a process view, cut at `max` characters with a marker. */
export function viewText(view: ProcessView, max: number): string {
  const { efficiency: _efficiency, ...shown } = view;
  const text = `${headOf(shown)}\n${JSON.stringify(shown)}`;
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… truncated ${text.length - max} characters: the whole result is in structuredContent; return less through cyrnel.output()]`;
}

/**
 * A tool result for a process view: text for the model, the whole view as structured content,
 * and once the run ended its efficiency meter in `_meta` (`cyrnel/efficiency`). A run that failed,
 * timed out or was cancelled is an error; one waiting for a person is not.
 */
export function viewResult(view: ProcessView, max: number) {
  const { efficiency, ...shown } = view;
  return {
    content: [{ type: 'text' as const, text: viewText(shown, max) }],
    structuredContent: { ...shown, toolCalls: [...shown.toolCalls] } as unknown as Record<string, unknown>,
    isError: view.state === 'idle' && view.exitState !== 'success',
    // For the client and its host, not the model: what the run read and what it returned.
    ...(efficiency ? { _meta: { [EFFICIENCY_META]: efficiency } } : {}),
  };
}
