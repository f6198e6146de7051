import { DEFAULT_PROCESS_LIMITS } from '@cyrnel/core';
import { McpServer } from '@modelcontextprotocol/server';
import { approvalRoundCodec } from './approval-round';
import type { CatalogChanges } from './catalog-watch';
import { registerCheckTool } from './check-tool';
import { registerDiscoveryTools } from './discovery-tools';
import { INLINE_TYPES_UP_TO } from './execute-description';
import { followCatalog } from './follow-catalog';
import type { McpBackend } from './mcp-backend';
import { registerProcessTools, serverUrlOf } from './process-tools';
import { registerResources } from './resources';
import { registerTaskMethods } from './task-methods';
import { createTaskService, type McpTasksOptions, TASK_CAPABILITIES } from './tasks';
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
  /**
   * The server's URL, the base of the admin UI's link to an approval (`<url>/ui/approvals/<id>`).
   * Default: the origin the client reached over HTTP; over stdio, the path alone.
   */
  readonly serverUrl?: string;
  /**
   * The HMAC key (at least 32 bytes) sealing the state of an approval asked through the client
   * (a multi round-trip result the client sends back with the person's answer). Every instance
   * that may receive the retry needs the same key: `createMcpHttpHandler` and `serveCyrnelStdio`
   * make one for all their instances. Default: a random key of this instance alone.
   */
  readonly requestStateKey?: Uint8Array | string;
  /**
   * Whether a 2025-era client can be sent a request (the form asking a person) during a call:
   * over a connection (stdio), yes; over stateless HTTP, no, since its answer would reach another
   * instance, which could never hand it to this one. Default true; `createMcpHttpHandler` sets it
   * false for its 2025-era instances.
   */
  readonly legacyClientRequests?: boolean;
  /**
   * The catalog's changes, followed by this instance while it is connected (a stdio connection):
   * `execute_typescript`'s description is rendered again and the client told the lists changed.
   */
  readonly catalogChanges?: CatalogChanges;
  /**
   * Whether the capabilities advertise `listChanged` for tools and resources: only where the
   * notifications can reach the client. Default: when following `catalogChanges`.
   */
  readonly listChanged?: boolean;
  /**
   * Long runs as MCP tasks, for clients that ask (a 2025-11-25 `tools/call` with `params.task`, a
   * 2026-07-28 client declaring the Tasks extension): `execute_typescript` answers a task whose
   * id names its process, followed with `tasks/get`, `tasks/result`, `tasks/list`,
   * `tasks/cancel` (2025-11-25) or `tasks/get`, `tasks/update`, `tasks/cancel` (2026-07-28).
   * `false`: no tasks (and none advertised). Default: on, with the defaults of {@link McpTasksOptions}.
   */
  readonly tasks?: McpTasksOptions | false;
}

/** The server's `instructions`: the workflow, for clients that show them to the model. */
export const INSTRUCTIONS = `cyrnel runs TypeScript you write in a sandbox whose only way out is the tools of the services installed here.
Workflow: 1) search_tools to find the tools for the task (by words, or by a known "service.tool" id); 2) get_tool_types for the ones you will call, to see their exact parameters and results; 3) execute_typescript with code that calls them and passes what you need to cyrnel.output(). Only what reaches cyrnel.output() (plus stdout/stderr) comes back, so filter and summarise large results in the code instead of returning them whole. A process still running after waitMs is not lost: call get_process with its processId. A tool call may need a person's approval: the run then waits (state "waiting"); tell the user where to approve it (the answer gives the link), then call wait_process with its processId.`;

/**
 * Build an MCP server (one per request or connection) exposing cyrnel's code mode over any
 * {@link McpBackend}: `search_tools`, `get_tool_types`, `execute_typescript`, `get_process`,
 * `wait_process`, and the docs and types as resources.
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
  const codec = approvalRoundCodec(options.requestStateKey);
  const listChanged = options.listChanged ?? options.catalogChanges !== undefined;
  const maxTextChars = options.maxTextChars ?? 20_000;
  const tasks =
    options.tasks === false
      ? undefined
      : createTaskService(backend, options.tasks ?? {}, {
          // Task ids outlive a request: sealed with the key every instance of the endpoint shares.
          key: options.tasks?.idKey ?? options.requestStateKey,
          maxTextChars,
          serverUrl: (ctx) => serverUrlOf(ctx, options.serverUrl),
        });
  const server = new McpServer(
    { name: 'cyrnel', version: options.version },
    {
      instructions: INSTRUCTIONS,
      // A retry's state is verified before any handler runs: one that is not ours is refused.
      requestState: { verify: codec.verify },
      capabilities: {
        tools: { listChanged },
        resources: { listChanged },
        ...(tasks ? TASK_CAPABILITIES : {}),
      },
    },
  );
  registerDiscoveryTools(server, backend, inputs);
  const processTools = await registerProcessTools(server, backend, {
    inputs,
    defaultWaitMs,
    maxTextChars,
    inlineTypesUpTo: options.inlineTypesUpTo ?? INLINE_TYPES_UP_TO,
    progressPollMs: options.progressPollMs ?? 100,
    requestSignal: options.requestSignal,
    serverUrl: options.serverUrl,
    legacyClientRequests: options.legacyClientRequests ?? true,
    codec,
    tasks,
  });
  if (tasks) registerTaskMethods(server, tasks, processTools.asking);
  registerResources(server, backend);
  registerCheckTool(server, backend, inputs.check);
  if (options.catalogChanges) followCatalog(server, options.catalogChanges, processTools.refreshDescription);
  return server;
}
