import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { McpBackend, ProcessView } from './backend';

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
  /** Largest `code` in characters. Default 100 KiB. */
  readonly maxCodeChars?: number;
  /**
   * Aborted when the client goes away (the HTTP request's signal): a run being waited for is
   * killed then, also where the protocol's own cancellation cannot reach this server (2025-era
   * stateless HTTP sends `notifications/cancelled` in another request).
   */
  readonly requestSignal?: AbortSignal;
}

/**
 * The schema with its JSON Schema conversion memoised. The SDK converts a tool's schemas on every
 * `tools/call` of a fresh server (one per request here): 0.2 ms a request for the same answer.
 * Validation still runs on the zod schema itself.
 */
function cachedJsonSchema<T extends z.ZodType>(schema: T): T {
  const standard = schema['~standard'] as StandardWithJsonSchema;
  const cache = new Map<string, unknown>();
  const memo =
    (io: 'input' | 'output') =>
    (options: { target?: string }): unknown => {
      const key = `${io}:${options?.target}`;
      if (!cache.has(key)) cache.set(key, standard.jsonSchema[io](options));
      return cache.get(key);
    };
  const cached = { ...standard, jsonSchema: { input: memo('input'), output: memo('output') } };
  return new Proxy(schema, {
    get: (target, property) => (property === '~standard' ? cached : Reflect.get(target, property, target)),
  });
}

/** The part of zod's `~standard` the SDK reads (Standard Schema with Standard JSON Schema). */
interface StandardWithJsonSchema {
  readonly jsonSchema: Record<'input' | 'output', (options: { target?: string }) => unknown>;
}

/** The server's `instructions`: the workflow, for clients that show them to the model. */
export const INSTRUCTIONS = `cyrnel runs TypeScript you write in a sandbox whose only way out is the tools of the services installed here.
Workflow: 1) search_tools to find the tools for the task (by words, or by a known "service.tool" id); 2) get_tool_types for the ones you will call, to see their exact parameters and results; 3) execute_typescript with code that calls them and passes what you need to cyrnel.output(). Only what reaches cyrnel.output() (plus stdout/stderr) comes back, so filter and summarise large results in the code instead of returning them whole. A process still running after waitMs is not lost: call get_process with its processId.`;

const RUNTIME_RULES = `Runs TypeScript in an isolated sandbox and returns what the code passed to cyrnel.output(), with stdout, stderr and the tool calls it made.

Rules of the runtime:
- Top-level await works; the code is the body of an async function.
- The only way out is the tools: await cyrnel.services.<serviceId>.tools.<toolId>.invoke(parameters). There is no fetch, no network, no file system, no process.
- Only data passed to cyrnel.output(object) comes back; several calls merge their objects. console.log goes to stdout.
- Inside the code, cyrnel.discover.services(), cyrnel.discover.tools({ query }) and cyrnel.discover.describe(serviceId, toolId) find tools at run time.
- A tool call that fails throws an error with a code and reason; catch it to continue.
- timeoutMs bounds the run (default set by the server); waitMs bounds how long this call waits for it. If the run is not finished by then, the result says so and gives processId: call get_process to wait again.`;

const VIEW = cachedJsonSchema(
  z.object({
    processId: z.number().int(),
    state: z.enum(['idle', 'queued', 'running', 'terminating']),
    exitState: z.enum(['success', 'failed', 'timeout', 'canceled']).nullable(),
    error: z.string().nullable(),
    output: z.record(z.string(), z.unknown()),
    stdout: z.string(),
    stderr: z.string(),
    toolCalls: z.array(
      z.object({
        serviceId: z.string(),
        toolId: z.string(),
        ok: z.boolean(),
        durationMs: z.number(),
        errorReason: z.string().nullable(),
      }),
    ),
  }),
);

/** The input schemas, built once per (code limit, default wait): zod schemas are reused across requests. */
const INPUTS = new Map<string, ReturnType<typeof buildInputs>>();

function buildInputs(maxCodeChars: number, defaultWaitMs: number) {
  return {
    search: cachedJsonSchema(
      z.object({
        query: z.string().min(1).max(500).describe('Words describing the task, or a tool id'),
        serviceId: z.string().min(1).max(200).optional().describe('Only tools of this service'),
        limit: z.number().int().min(1).max(50).optional().describe('At most this many tools (default 10)'),
      }),
    ),
    types: cachedJsonSchema(
      z.object({
        tools: z.array(z.string().min(3).max(400)).min(1).max(50).describe('Tool ids as "serviceId.toolId"'),
      }),
    ),
    execute: cachedJsonSchema(
      z.object({
        code: z
          .string()
          .min(1)
          .max(maxCodeChars)
          .describe(
            'TypeScript; calls tools with await cyrnel.services.<service>.tools.<tool>.invoke({...}) and returns data with cyrnel.output({...})',
          ),
        timeoutMs: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe("Deadline of the run in ms (default: the server's)"),
        waitMs: z
          .number()
          .int()
          .min(0)
          .max(600_000)
          .optional()
          .describe(
            `How long this call waits for the run, in ms (default ${defaultWaitMs}); then use get_process`,
          ),
      }),
    ),
    get: cachedJsonSchema(
      z.object({
        processId: z.number().int().min(1).describe('The processId execute_typescript answered'),
        waitMs: z
          .number()
          .int()
          .min(0)
          .max(600_000)
          .optional()
          .describe(`How long to wait, in ms (default ${defaultWaitMs})`),
      }),
    ),
  };
}

function inputsFor(maxCodeChars: number, defaultWaitMs: number): ReturnType<typeof buildInputs> {
  const key = `${maxCodeChars}:${defaultWaitMs}`;
  let inputs = INPUTS.get(key);
  if (!inputs) {
    inputs = buildInputs(maxCodeChars, defaultWaitMs);
    INPUTS.set(key, inputs);
  }
  return inputs;
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
      ? `\n\nDeclarations of every tool:\n\`\`\`ts\n${await backend.allTypes()}\n\`\`\``
      : total > inlineUpTo
        ? '\n\nUse search_tools and get_tool_types first to see the exact parameters of the tools you need.'
        : '';
  return `${RUNTIME_RULES}\n\n${list}${types}`;
}

/**
 * Build an MCP server (one per request or connection) exposing cyrnel's code mode: `search_tools`,
 * `get_tool_types`, `execute_typescript`, `get_process`, and the docs and types as resources.
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
  const maxText = options.maxTextChars ?? 20_000;
  const inputs = inputsFor(options.maxCodeChars ?? 100 * 1024, defaultWaitMs);
  const server = new McpServer({ name: 'cyrnel', version: options.version }, { instructions: INSTRUCTIONS });

  server.registerTool(
    'search_tools',
    {
      title: 'Search tools',
      description:
        'Find the tools of the services installed in cyrnel, ranked best first. Search by words of what you want to do ("create issue", "forecast") or by a tool id ("issues_create" or "github.issues_create"). Answers "service.tool" ids with a one-line description; then call get_tool_types for the ones you will use.',
      inputSchema: inputs.search,

      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, serviceId, limit }) => {
      const tools = await backend.searchTools({
        query,
        limit: limit ?? 10,
        ...(serviceId ? { serviceId } : {}),
      });
      const lines = tools.map(
        (tool) =>
          `${tool.serviceId}.${tool.toolId} — ${tool.name}${tool.description ? `: ${tool.description.split('\n')[0]?.slice(0, 200)}` : ''}`,
      );
      return {
        content: [
          { type: 'text', text: lines.length > 0 ? lines.join('\n') : `No tool matches "${query}".` },
        ],
        structuredContent: {
          tools: tools.map((tool) => ({
            tool: `${tool.serviceId}.${tool.toolId}`,
            name: tool.name,
            description: tool.description.split('\n')[0]?.slice(0, 200) ?? '',
          })),
        },
      };
    },
  );

  server.registerTool(
    'get_tool_types',
    {
      title: 'Get tool types',
      description:
        'The TypeScript declarations of the named tools ("service.tool" ids from search_tools): their exact parameters and results, shared types included once. Read them before writing code for execute_typescript. Unknown names are listed, not fatal.',
      inputSchema: inputs.types,

      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ tools }) => {
      const { declarations, unknown } = await backend.toolTypes(tools);
      const note = unknown.length > 0 ? `\n// Unknown or disabled tools: ${unknown.join(', ')}` : '';
      return {
        content: [{ type: 'text', text: `${declarations}${note}`.trim() || '// no known tools' }],
        structuredContent: { declarations, unknown },
      };
    },
  );

  server.registerTool(
    'execute_typescript',
    {
      title: 'Execute TypeScript',
      description: await executeDescription(backend, options.inlineTypesUpTo ?? 30),
      inputSchema: inputs.execute,
      outputSchema: VIEW,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async ({ code, timeoutMs, waitMs }, ctx) => {
      const id = await backend.createProcess(code, timeoutMs);
      return result(
        await waitWithProgress(backend, id, waitMs ?? defaultWaitMs, ctx, true, options.requestSignal),
        maxText,
      );
    },
  );

  server.registerTool(
    'get_process',
    {
      title: 'Get process',
      description:
        'The state and result of a process started by execute_typescript, waiting up to waitMs for it to finish. Same result shape as execute_typescript.',
      inputSchema: inputs.get,
      outputSchema: VIEW,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ processId, waitMs }, ctx) =>
      result(await waitWithProgress(backend, processId, waitMs ?? defaultWaitMs, ctx, false), maxText),
  );

  server.registerResource(
    'runtime-docs',
    'cyrnel://docs/runtime',
    { title: 'Runtime docs', description: 'How code runs in the sandbox', mimeType: 'text/markdown' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await backend.runtimeDocs() }],
    }),
  );
  server.registerResource(
    'types',
    'cyrnel://types',
    {
      title: 'All tool types',
      description: 'TypeScript declarations of every enabled tool',
      mimeType: 'text/plain',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: await backend.allTypes() }],
    }),
  );
  server.registerResource(
    'tool-docs',
    new ResourceTemplate('cyrnel://tools/{serviceId}/{toolId}/docs', { list: undefined }),
    { title: 'Tool docs', description: "One tool's docs", mimeType: 'text/markdown' },
    async (uri, variables) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/markdown',
          text: await backend.toolDocs(String(variables.serviceId), String(variables.toolId)),
        },
      ],
    }),
  );
  return server;
}

/** The handler context this package reads: the request's abort signal, progress token and notifier. */
interface CallContext {
  readonly mcpReq: {
    readonly signal: AbortSignal;
    readonly _meta?: { progressToken?: string | number } & Record<string, unknown>;
    notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  };
}

/** Wait for a process: a progress notification per finished tool call; a cancelled request kills it. */
async function waitWithProgress(
  backend: McpBackend,
  id: number,
  waitMs: number,
  ctx: CallContext,
  killOnCancel = true,
  requestSignal?: AbortSignal,
): Promise<ProcessView> {
  const token = ctx.mcpReq._meta?.progressToken;
  // One controller fed by both signals through listeners: `AbortSignal.any` costs far more per
  // request on this path (measured in the bench's MCP row).
  const stop = new AbortController();
  const sources = requestSignal ? [ctx.mcpReq.signal, requestSignal] : [ctx.mcpReq.signal];
  const onSource = () => stop.abort();
  for (const source of sources) {
    if (source.aborted) stop.abort();
    else source.addEventListener('abort', onSource, { once: true });
  }
  const signal = stop.signal;
  const onAbort = () => {
    if (killOnCancel) backend.killProcess(id).catch(() => undefined);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await backend.waitProcess(id, waitMs, {
      signal,
      ...(token === undefined
        ? {}
        : {
            onCall: (count: number) => {
              ctx.mcpReq
                .notify({
                  method: 'notifications/progress',
                  params: {
                    progressToken: token,
                    progress: count,
                    message: `${count} tool call${count === 1 ? '' : 's'} finished`,
                  },
                })
                .catch(() => undefined);
            },
          }),
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
    for (const source of sources) source.removeEventListener('abort', onSource);
  }
}
