import { DEFAULT_PROCESS_LIMITS } from '@cyrnel/core';
import { McpServer } from '@modelcontextprotocol/server';
import { registerDiscoveryTools } from './discovery-tools';
import type { McpBackend } from './mcp-backend';
import { registerProcessTools } from './process-tools';
import { registerResources } from './resources';
import { toolInputs } from './tool-schemas';

/** Options of {@link createCyrnelMcpServer}. */
export interface CyrnelMcpServerOptions {
  /** Server version reported to clients. */
  readonly version: string;
  /** Default `waitMs` of `execute_typescript` and `get_process`: below the common 60 s client timeout. Default 50,000. */
  readonly defaultWaitMs?: number;
  /** Catalogs with at most this many tools get their declarations in `execute_typescript`'s description. Default 30. */
  readonly inlineTypesUpTo?: number;
  /** Text results are cut beyond this many characters (the structured result stays whole). Default 20,000. */
  readonly maxTextChars?: number;
  /** Largest `code` in characters. Default: the core's code limit (100 KiB). */
  readonly maxCodeChars?: number;
  /** How often finished tool calls are counted while a run is waited for, for progress. Default 100 ms. */
  readonly progressPollMs?: number;
  /**
   * Aborted when the client goes away (the HTTP request's signal): a run being waited for is
   * killed then, also where the protocol's own cancellation cannot reach this server (2025-era
   * stateless HTTP sends `notifications/cancelled` in another request).
   */
  readonly requestSignal?: AbortSignal;
}

/** The server's `instructions`: the workflow, for clients that show them to the model. */
export const INSTRUCTIONS = `cyrnel runs TypeScript you write in a sandbox whose only way out is the tools of the services installed here.
Workflow: 1) search_tools to find the tools for the task (by words, or by a known "service.tool" id); 2) get_tool_types for the ones you will call, to see their exact parameters and results; 3) execute_typescript with code that calls them and passes what you need to cyrnel.output(). Only what reaches cyrnel.output() (plus stdout/stderr) comes back, so filter and summarise large results in the code instead of returning them whole. A process still running after waitMs is not lost: call get_process with its processId.`;

/**
 * Build an MCP server (one per request or connection) exposing cyrnel's code mode over any
 * {@link McpBackend}: `search_tools`, `get_tool_types`, `execute_typescript`, `get_process`, and
 * the docs and types as resources.
 *
 * @example
 * ```ts
 * import { createMcpHandler } from '@modelcontextprotocol/server';
 * const handler = createMcpHandler(() => createCyrnelMcpServer(createHostBackend({ host }), { version: '0.1.0' }));
 * app.all('/mcp', (c) => handler.fetch(c.req.raw));
 * ```
 */
export async function createCyrnelMcpServer(
  backend: McpBackend,
  options: CyrnelMcpServerOptions,
): Promise<McpServer> {
  const defaultWaitMs = options.defaultWaitMs ?? 50_000;
  const inputs = toolInputs(options.maxCodeChars ?? DEFAULT_PROCESS_LIMITS.maxCodeBytes, defaultWaitMs);
  const server = new McpServer({ name: 'cyrnel', version: options.version }, { instructions: INSTRUCTIONS });
  registerDiscoveryTools(server, backend, inputs);
  await registerProcessTools(server, backend, {
    inputs,
    defaultWaitMs,
    maxTextChars: options.maxTextChars ?? 20_000,
    inlineTypesUpTo: options.inlineTypesUpTo ?? 30,
    progressPollMs: options.progressPollMs ?? 100,
    requestSignal: options.requestSignal,
  });
  registerResources(server, backend);
  return server;
}
