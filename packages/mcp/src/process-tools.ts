import type { McpServer } from '@modelcontextprotocol/server';
import type { McpBackend } from './mcp-backend';
import { type ProcessView, viewText } from './process-view';
import { PROCESS_VIEW_SCHEMA, type ToolInputs } from './tool-schemas';
import { waitForProcess } from './wait-for-process';

/** What the process tools are built with (the server's options, defaults applied). */
export interface ProcessToolsOptions {
  readonly inputs: ToolInputs;
  /** Default `waitMs` of both tools. */
  readonly defaultWaitMs: number;
  /** Text results are cut beyond this many characters. */
  readonly maxTextChars: number;
  /** Catalogs with at most this many tools get their declarations in `execute_typescript`'s description. */
  readonly inlineTypesUpTo: number;
  /** How often finished tool calls are counted while waiting, for progress. */
  readonly progressPollMs: number;
  /** Aborted when the client goes away: the run waited for by `execute_typescript` is killed then. */
  readonly requestSignal?: AbortSignal | undefined;
}

const RUNTIME_RULES = `Runs TypeScript in an isolated sandbox and returns what the code passed to cyrnel.output(), with stdout, stderr and the tool calls it made.

Rules of the runtime:
- Top-level await works; the code is the body of an async function.
- The only way out is the tools: await cyrnel.services.<serviceId>.tools.<toolId>.invoke(parameters). There is no fetch, no network, no file system, no process.
- Only data passed to cyrnel.output(object) comes back; several calls merge their objects. console.log goes to stdout.
- Inside the code, cyrnel.discover.services(), cyrnel.discover.tools({ query }) and cyrnel.discover.describe(serviceId, toolId) find tools at run time.
- A tool call that fails throws an error with a code and reason; catch it to continue.
- timeoutMs bounds the run (default set by the server); waitMs bounds how long this call waits for it. If the run is not finished by then, the result says so and gives processId: call get_process to wait again.`;

/** A tool result for a process view: text for the model, the whole view as structured content. */
function result(view: ProcessView, max: number) {
  return {
    content: [{ type: 'text' as const, text: viewText(view, max) }],
    structuredContent: { ...view, toolCalls: [...view.toolCalls] } as unknown as Record<string, unknown>,
    isError: view.state === 'idle' && view.exitState !== 'success',
  };
}

/** The description of `execute_typescript`: the rules, the services, and the declarations when few. */
async function executeDescription(backend: McpBackend, inlineUpTo: number): Promise<string> {
  const services = await backend.services().catch(() => undefined);
  if (!services)
    return `${RUNTIME_RULES}\n\nThe enabled services could not be listed now: use search_tools to find tools.`;
  const total = services.reduce((sum, service) => sum + service.toolCount, 0);
  const list =
    services.length === 0
      ? 'No service is enabled yet: the code can only compute and print.'
      : `Enabled services (${total} tools):\n${services.map((s) => `- ${s.id}: ${s.name}${s.description ? ` — ${s.description.split('\n')[0]?.slice(0, 160)}` : ''} (${s.toolCount} tools)`).join('\n')}`;
  const types =
    total > 0 && total <= inlineUpTo
      ? `\n\nDeclarations of every tool:\n\`\`\`ts\n${await backend.environment.types()}\n\`\`\``
      : total > inlineUpTo
        ? '\n\nUse search_tools and get_tool_types first to see the exact parameters of the tools you need.'
        : '';
  return `${RUNTIME_RULES}\n\n${list}${types}`;
}

/** Register `execute_typescript` and `get_process`: running code, and waiting again for a run. */
export async function registerProcessTools(
  server: McpServer,
  backend: McpBackend,
  options: ProcessToolsOptions,
): Promise<void> {
  const { inputs, defaultWaitMs, maxTextChars, progressPollMs } = options;
  server.registerTool(
    'execute_typescript',
    {
      title: 'Execute TypeScript',
      description: await executeDescription(backend, options.inlineTypesUpTo),
      inputSchema: inputs.execute,
      outputSchema: PROCESS_VIEW_SCHEMA,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async ({ code, timeoutMs, waitMs }, ctx) => {
      const { id } = await backend.processes.create({
        code,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      const view = await waitForProcess(backend, id, ctx, {
        waitMs: waitMs ?? defaultWaitMs,
        killOnCancel: true,
        requestSignal: options.requestSignal,
        progressPollMs,
      });
      return result(view, maxTextChars);
    },
  );

  server.registerTool(
    'get_process',
    {
      title: 'Get process',
      description:
        'The state and result of a process started by execute_typescript, waiting up to waitMs for it to finish. Same result shape as execute_typescript.',
      inputSchema: inputs.get,
      outputSchema: PROCESS_VIEW_SCHEMA,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ processId, waitMs }, ctx) => {
      // Only the wait belongs to this request: cancelling it leaves the run alone.
      const view = await waitForProcess(backend, processId, ctx, {
        waitMs: waitMs ?? defaultWaitMs,
        killOnCancel: false,
        progressPollMs,
      });
      return result(view, maxTextChars);
    },
  );
}
