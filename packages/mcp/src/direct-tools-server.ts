import type { JSONSchema } from '@cyrnel/sdk';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  isInputRequiredResult,
  type ListToolsResult,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** How one direct call reaches its source: the request, and what the client declared it can do. */
export interface DirectCallContext {
  readonly ctx: ServerContext;
  /** The client's capabilities for this request (whether it shows forms, for approvals). */
  clientCapabilities(): ClientCapabilities | undefined;
}

/** A direct call's answer, with the output schema the tool was listed with (the SDK projects by it). */
export interface DirectCallAnswer {
  readonly result: CallToolResult | InputRequiredResult;
  readonly outputSchema?: JSONSchema | undefined;
}

/**
 * Where direct tools come from, for one caller: a host in this process, or a cyrnel server over
 * HTTP. Both answer `tools/list` pages and `tools/call`; the MCP server around them is one.
 */
export interface DirectToolsSource {
  /** One page of the tools the caller may call; a cursor that is not one of its pages is -32602. */
  list(cursor: string | undefined): Promise<ListToolsResult>;
  /** Call a tool; a name that is no tool is -32602. */
  call(name: string, args: Record<string, unknown>, context: DirectCallContext): Promise<DirectCallAnswer>;
}

/** Options of {@link createDirectToolsServer}. */
export interface DirectToolsServerOptions {
  /** Server version reported to clients. */
  readonly version: string;
  /** Verifies the sealed state of a retry answering an approval, before any handler runs. */
  readonly verifyRequestState?: (state: string, ctx: ServerContext) => unknown;
  /** Whether `notifications/tools/list_changed` can reach the client (a connection, or a listening client). */
  readonly listChanged?: boolean;
  /**
   * Whether a 2025-era client can be sent a request during a call (a connection, not stateless
   * HTTP): then its capabilities declared at `initialize` count. Default true.
   */
  readonly legacyClientRequests?: boolean;
}

/** The server's `instructions`: what the tools are and how their calls go. */
export const DIRECT_TOOLS_INSTRUCTIONS = `Each tool here is one tool of a service installed in cyrnel, named <service>__<tool>. Calls go through cyrnel's policies: a call may be refused (isError, with a stable reason such as tool_blocked), or wait for a person's approval (you may be asked to approve it; otherwise the result says where a person decides). Every call is recorded in cyrnel's audit as a process of one tool call.`;

/**
 * An MCP server offering a {@link DirectToolsSource}'s tools one by one, for clients that run their
 * own code and want tools rather than code mode: `tools/list` paginated, `tools/call` answered with
 * the source's result, projected for the client's protocol revision (a 2025-era client gets a
 * non-object result wrapped as `{result}`, as the SDK does for every tool). Built on the SDK's
 * low-level `Server`: `McpServer` lists its registered tools on one page and takes zod (Standard)
 * schemas, while these tools are the catalog's, paged, with JSON Schemas as the catalog holds them.
 *
 * @example
 * ```ts
 * const server = createDirectToolsServer(source, { version: '0.1.0' });
 * await server.connect(transport);
 * ```
 */
export function createDirectToolsServer(
  source: DirectToolsSource,
  options: DirectToolsServerOptions,
): Server {
  const { verifyRequestState } = options;
  const server = new Server(
    { name: 'cyrnel-tools', version: options.version },
    {
      instructions: DIRECT_TOOLS_INSTRUCTIONS,
      capabilities: { tools: { listChanged: options.listChanged ?? false } },
      ...(verifyRequestState ? { requestState: { verify: verifyRequestState } } : {}),
    },
  );
  const legacyClientRequests = options.legacyClientRequests ?? true;
  const capabilitiesOf = (ctx: ServerContext) => {
    // The request's own envelope (2026-07-28); else what the client declared when it connected,
    // on a connection only (an instance of stateless HTTP never saw an initialize of its own).
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
    if (declared !== undefined || !legacyClientRequests) return declared;
    return server.getClientCapabilities();
  };
  server.setRequestHandler('tools/list', (request) => source.list(request.params?.cursor));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const answer = await source.call(name, args ?? {}, {
      ctx,
      clientCapabilities: () => capabilitiesOf(ctx),
    });
    if (isInputRequiredResult(answer.result)) return answer.result;
    return server.projectCallToolResult(answer.result, answer.outputSchema);
  });
  return server;
}
