import type { DiscoveredService, DiscoveredTool, ExecutionExitState, ProcessState } from '@cyrnel/sdk';
import type { ToolCallRecord } from '@cyrnel/sdk/api';

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

/**
 * What the MCP server needs of cyrnel: the agent surface only (search, types, run, read, kill),
 * never admin operations. Two implementations: {@link createHostBackend} (the in-process core
 * host, for `/mcp` on the server) and {@link createClientBackend} (a remote server through
 * `@cyrnel/client`, for the stdio bridge).
 */
export interface McpBackend {
  /** Ranked tools, as `GET /tools?query=` ranks them. */
  searchTools(query: { query: string; serviceId?: string; limit: number }): Promise<DiscoveredTool[]>;
  /** Declarations of the named tools (`service.tool`); unknown names listed, not thrown. */
  toolTypes(tools: readonly string[]): Promise<{ declarations: string; unknown: string[] }>;
  /** Every enabled service. */
  services(): Promise<DiscoveredService[]>;
  /** Declarations of every effectively enabled tool. */
  allTypes(): Promise<string>;
  /** The environment's runtime docs (Markdown). */
  runtimeDocs(): Promise<string>;
  /** One tool's docs (Markdown). */
  toolDocs(serviceId: string, toolId: string): Promise<string>;
  /** Create and start a process; answers its id. */
  createProcess(code: string, timeoutMs: number | undefined): Promise<number>;
  /**
   * Wait until the process is idle, at most `waitMs`; then answer its view. `onCall` is called
   * with the number of finished tool calls whenever it grows while waiting.
   */
  waitProcess(
    id: number,
    waitMs: number,
    options: { signal: AbortSignal; onCall?: (count: number) => void },
  ): Promise<ProcessView>;
  /** Kill a queued or running process (nothing when it is idle). */
  killProcess(id: number): Promise<void>;
}
