import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type McpServer,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type ApprovalAsking, type WaitOrAskInput, waitOrAsk } from './approval-flow';
import { type ApprovalRound, roundOf } from './approval-round';
import { inCallerTrace, traceMetaOf } from './caller-trace';
import { diagnosticsResult, typeErrorsOf } from './check-tool';
import { executeDescription } from './execute-description';
import type { McpBackend } from './mcp-backend';
import { viewResult } from './process-view';
import { taskAsked } from './task-request';
import { answerAsTask } from './task-start';
import type { TaskService } from './tasks';
import { PROCESS_VIEW_SCHEMA, type ToolInputs } from './tool-schemas';
import { waitForProcess } from './wait-for-process';

/** What the process tools are built with (the server's options, defaults applied). */
export interface ProcessToolsOptions {
  readonly inputs: ToolInputs;
  /** Default `waitMs` of the tools that wait. */
  readonly defaultWaitMs: number;
  /** Text results are cut beyond this many characters. */
  readonly maxTextChars: number;
  /** Catalogs with at most this many tools get their declarations in `execute_typescript`'s description. */
  readonly inlineTypesUpTo: number;
  /** How often finished tool calls are counted while waiting, for progress. */
  readonly progressPollMs: number;
  /** Aborted when the client goes away: the run waited for by `execute_typescript` is killed then. */
  readonly requestSignal?: AbortSignal | undefined;
  /** The server's URL, the base of approval links; default the origin of the MCP request over HTTP. */
  readonly serverUrl?: string | undefined;
  /** Whether a 2025-era client can be sent a request during a call (a connection, not stateless HTTP). */
  readonly legacyClientRequests: boolean;
  /** Seals the rounds of approvals asked through the client. */
  readonly codec: RequestStateCodec<ApprovalRound>;
  /** Long runs as MCP tasks for clients that ask for them; absent: never a task. */
  readonly tasks?: TaskService | undefined;
}

const GET_DESCRIPTION =
  'The state and result of a process started by execute_typescript, waiting up to waitMs for it to finish; answers at once when it waits for a person\'s approval (state "waiting", approvalId, and the link where a person decides). Same result shape as execute_typescript; toolCalls carry how the policies decided each call.';

const WAIT_DESCRIPTION =
  'Keep waiting for a process started by execute_typescript, through the approval it waits for: answers its result once it ends, or, when timeoutMs passes or it waits for another approval, that it still waits (with the approvalId and the link where a person decides). When your client can show forms and your key may approve, the person is asked right here. Same result shape as execute_typescript.';

/** The round a retry answers, or undefined for a first call; a state of another request is refused. */
function answeredRound(ctx: ServerContext, tool: string, args: unknown): ApprovalRound | undefined {
  const state = ctx.mcpReq.requestState();
  if (state === undefined) return undefined;
  const round = roundOf(state, tool, args);
  if (!round) throw new Error(`the requestState belongs to another request than this ${tool} call`);
  return round;
}

/** The server's URL for approval links: the option, or the origin the client reached over HTTP. */
export function serverUrlOf(ctx: ServerContext, configured: string | undefined): string | undefined {
  if (configured !== undefined) return configured;
  const url = ctx.http?.req?.url;
  return url === undefined ? undefined : new URL(url).origin;
}

/** What the process tools leave to their server: keeping `execute_typescript`'s description current. */
export interface ProcessTools {
  /**
   * Render `execute_typescript`'s description again (the enabled services, a small catalog's
   * types), or take `rendered` as it when the caller has it: true when it changed (the SDK then
   * tells a connected client the tool list changed).
   */
  refreshDescription(rendered?: string): Promise<boolean>;
  /** How the tools ask a person through the client (the task methods ask the same way). */
  readonly asking: ApprovalAsking;
}

/** How a server's tools ask a person through the client: the client's capabilities per request. */
function askingOf(server: McpServer, backend: McpBackend, options: ProcessToolsOptions): ApprovalAsking {
  return {
    backend,
    codec: options.codec,
    capabilities: (ctx) => {
      // The request's own envelope (2026-07-28); else what the client declared when it connected,
      // on a connection only (a pooled stateless instance keeps an earlier exchange's).
      const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
      const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
      if (declared !== undefined || !options.legacyClientRequests) return declared;
      return server.server.getClientCapabilities();
    },
    maxTextChars: options.maxTextChars,
  };
}

/**
 * Register `execute_typescript`, `get_process` and `wait_process`: running code, looking at a run,
 * and waiting on a run through its approvals (asking a person through the client when it can).
 */
export async function registerProcessTools(
  server: McpServer,
  backend: McpBackend,
  options: ProcessToolsOptions,
): Promise<ProcessTools> {
  const { inputs, defaultWaitMs, progressPollMs } = options;
  const asking = askingOf(server, backend, options);
  const execute = server.registerTool(
    'execute_typescript',
    {
      title: 'Execute TypeScript',
      description: await executeDescription(backend, options.inlineTypesUpTo),
      inputSchema: inputs.execute,
      outputSchema: PROCESS_VIEW_SCHEMA,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    (args, ctx) =>
      // The caller's trace (`_meta.traceparent`) goes on in the process this call creates.
      inCallerTrace(ctx.mcpReq._meta, 'execute_typescript', async () => {
        const answering = answeredRound(ctx, 'execute_typescript', args);
        const { code, timeoutMs, waitMs, typecheck } = args;
        // A retry answering a person's decision goes on with its run: the code never runs twice.
        let processId = answering?.processId;
        try {
          processId ??= (
            await backend.processes.create(
              {
                code,
                ...(timeoutMs === undefined ? {} : { timeoutMs }),
                ...(typecheck === undefined ? {} : { typecheck }),
              },
              traceMetaOf(ctx.mcpReq._meta),
            )
          ).id;
        } catch (error) {
          // typecheck: "reject" refused code with type errors: the model reads them, nothing ran.
          const diagnostics = typeErrorsOf(error);
          if (diagnostics) return diagnosticsResult(diagnostics, true);
          throw error;
        }
        const input: WaitOrAskInput = {
          tool: 'execute_typescript',
          args,
          processId,
          answering,
          wait: {
            waitMs: waitMs ?? defaultWaitMs,
            killOnCancel: true,
            requestSignal: options.requestSignal,
            progressPollMs,
            serverUrl: serverUrlOf(ctx, options.serverUrl),
          },
        };
        const era = options.tasks ? taskAsked(ctx) : undefined;
        if (options.tasks === undefined || era === undefined) return waitOrAsk(asking, ctx, input);
        return answerAsTask(options.tasks, ctx, {
          era,
          processId,
          waitMs: input.wait.waitMs,
          connection: options.legacyClientRequests,
          waitOrAsk: (ms) => waitOrAsk(asking, ctx, { ...input, wait: { ...input.wait, waitMs: ms } }),
        });
      }),
  );
  // Tasks are the client's choice: it may ask for one, or call as before.
  if (options.tasks) execute.execution = { taskSupport: 'optional' };

  server.registerTool(
    'get_process',
    {
      title: 'Get process',
      description: GET_DESCRIPTION,
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
        serverUrl: serverUrlOf(ctx, options.serverUrl),
      });
      return viewResult(view, options.maxTextChars);
    },
  );

  server.registerTool(
    'wait_process',
    {
      title: 'Wait for process',
      description: WAIT_DESCRIPTION,
      inputSchema: inputs.wait,
      outputSchema: PROCESS_VIEW_SCHEMA,
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    async (args, ctx) =>
      waitOrAsk(asking, ctx, {
        tool: 'wait_process',
        args,
        processId: args.processId,
        answering: answeredRound(ctx, 'wait_process', args),
        waitThrough: true,
        wait: {
          waitMs: args.timeoutMs ?? defaultWaitMs,
          killOnCancel: false,
          progressPollMs,
          serverUrl: serverUrlOf(ctx, options.serverUrl),
        },
      }),
  );
  return {
    asking,
    refreshDescription: async (rendered) => {
      const description = rendered ?? (await executeDescription(backend, options.inlineTypesUpTo));
      if (description === execute.description) return false;
      execute.update({ description });
      return true;
    },
  };
}
