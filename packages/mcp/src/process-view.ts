import type { ExecutionExitState, ProcessState } from '@cyrnel/sdk';
import type { ProcessRecord, ProcessResult, ToolCallRecord } from '@cyrnel/sdk/api';
import type { McpBackend } from './mcp-backend';

/** A process as the MCP tools report it. */
export interface ProcessView {
  readonly processId: number;
  readonly state: ProcessState;
  readonly exitState: ExecutionExitState | null;
  readonly error: string | null;
  readonly output: Record<string, unknown>;
  readonly stdout: string;
  readonly stderr: string;
  readonly toolCalls: readonly Pick<
    ToolCallRecord,
    'serviceId' | 'toolId' | 'ok' | 'durationMs' | 'errorReason'
  >[];
}

/** Results of a process: from a record that carries them, read once it is idle, empty while it runs. */
async function resultsOf(
  backend: McpBackend,
  record: ProcessRecord | ProcessResult,
): Promise<Pick<ProcessView, 'output' | 'stdout' | 'stderr'>> {
  if ('output' in record) return { output: record.output, stdout: record.stdout, stderr: record.stderr };
  if (record.state !== 'idle') return { output: {}, stdout: '', stderr: '' };
  const { processes } = backend;
  const [output, stdout, stderr] = await Promise.all([
    processes.output(record.id),
    processes.stdout(record.id),
    processes.stderr(record.id),
  ]);
  return { output, stdout, stderr };
}

/** The view of a process: its record, its results (once idle) and the tool calls it made. */
export async function viewOf(
  backend: McpBackend,
  record: ProcessRecord | ProcessResult,
): Promise<ProcessView> {
  const [results, calls] = await Promise.all([
    resultsOf(backend, record),
    backend.processes.calls(record.id),
  ]);
  return {
    processId: record.id,
    state: record.state,
    exitState: record.exitState,
    error: record.error,
    ...results,
    toolCalls: calls.map(({ serviceId, toolId, ok, durationMs, errorReason }) => ({
      serviceId,
      toolId,
      ok,
      durationMs,
      errorReason,
    })),
  };
}

/** The text a model reads for a process view, cut at `max` characters with a marker. */
export function viewText(view: ProcessView, max: number): string {
  const head =
    view.state === 'idle'
      ? `Process ${view.processId} finished: ${view.exitState}${view.error ? ` (${view.error})` : ''}.`
      : `Process ${view.processId} is still ${view.state}. Call get_process with processId ${view.processId} to wait for its result.`;
  const text = `${head}\n${JSON.stringify(view)}`;
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… truncated ${text.length - max} characters: the whole result is in structuredContent; return less through cyrnel.output()]`;
}
