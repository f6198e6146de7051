import { type CyrnelHost, cyrnelError, jsonShapeExceeds, type KeyRules } from '@cyrnel/core';
import { type AppEnv, type Caller, callerProcesses, type RouteGroup } from '@cyrnel/http';
import type { McpHttpHandler } from '@cyrnel/mcp';
import { type Context, Hono } from 'hono';
import { lazyPart } from './lazy-part';

/** Options of {@link mcpRouteGroup}. */
export interface McpRouteOptions {
  readonly host: CyrnelHost;
  readonly version: string;
  /** Largest MCP request body: the code-size limit plus room for the JSON-RPC envelope. */
  readonly maxBodyBytes: number;
  /** Largest `code` of `execute_typescript`, in characters. */
  readonly maxCodeChars: number;
  /** Nesting depth and element count a request body may have (as on every other route). */
  readonly maxJsonDepth: number;
  readonly maxJsonElements: number;
  /** Signs the state of approval rounds and task ids (the same on every host of one database). */
  readonly requestStateKey?: Uint8Array;
  /** The scope and policy of a stored key: `/mcp/tools` lists what the key may call. */
  readonly keyRules?: (keyId: string) => Promise<KeyRules | undefined>;
  /** A tool `/mcp/tools` does not offer (its name breaks MCP's rules or is shared, a schema too large). */
  readonly onLeftOut?: (message: string) => void;
  /** How long MCP tasks last, as clients are told: the process retention (null: kept forever). */
  readonly taskTtlMs?: number | null;
  /** Told why the MCP layer could not be loaded (the request that needed it answers a 500). */
  readonly onLoadError?: (error: unknown) => void;
}

/** The handlers of `/mcp` and `/mcp/tools`. */
interface McpHandlers {
  readonly handler: McpHttpHandler<Caller>;
  readonly tools: McpHttpHandler<Caller>;
}

/**
 * What a browser client of an allowed origin may send and read: the key and the headers of
 * Streamable HTTP (the session and protocol version, resuming a stream, and the method and name
 * a 2026-07-28 client repeats from its body); the challenge of a 401 too, for OAuth clients.
 */
const MCP_CORS = {
  allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  allowHeaders: [
    'Authorization',
    'Content-Type',
    'Accept',
    'Mcp-Session-Id',
    'Mcp-Protocol-Version',
    'Last-Event-ID',
    'Mcp-Method',
    'Mcp-Name',
  ],
  exposeHeaders: ['Mcp-Session-Id', 'Mcp-Protocol-Version', 'WWW-Authenticate'],
} as const;

/** Who a caller is, as far as its MCP requests go: its key (or OAuth subject) and role. */
function callerIdentity(caller: Caller): string {
  return `${caller.keyId ?? ''}\u0000${caller.role}\u0000${caller.oauthSubject ?? ''}`;
}

/** A JSON-RPC error answer for a body refused before the MCP layer reads it. */
function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status });
}

/**
 * `/mcp`: cyrnel's code mode as a Streamable HTTP MCP endpoint, behind the same key, Host and
 * Origin checks as the rest of the API. Agent keys may use it; their processes are their own,
 * exactly as on `/processes`. An admin or approver key's client that answers forms is asked to
 * decide the approvals its runs wait for. `/mcp/tools` offers the same caller its tools one by one
 * (direct tools, for clients that run their own code), behind the same checks.
 */
export function mcpRouteGroup(options: McpRouteOptions): {
  group: RouteGroup;
  handler: McpHttpHandler<Caller>;
} {
  const { host } = options;
  // The MCP layer (`@cyrnel/mcp`, the MCP SDK and its schemas: tens of megabytes of a server's
  // memory) is loaded by the first request to `/mcp`: a server nobody reaches over MCP never holds it.
  const handlers = lazyPart<McpHandlers>(
    'the MCP endpoint',
    async () => {
      const [{ createHostBackend, createMcpHttpHandler }, { directToolsHandler }] = await Promise.all([
        import('@cyrnel/mcp'),
        import('./mcp-tools-route'),
      ]);
      return {
        handler: mcpHandler(options, createHostBackend, createMcpHttpHandler),
        tools: directToolsHandler({
          host,
          version: options.version,
          maxBodyBytes: options.maxBodyBytes,
          identity: callerIdentity,
          ...(options.keyRules ? { keyRules: options.keyRules } : {}),
          ...(options.requestStateKey ? { requestStateKey: options.requestStateKey } : {}),
          ...(options.onLeftOut ? { onLeftOut: options.onLeftOut } : {}),
        }),
      };
    },
    options.onLoadError,
  );
  const serve = (endpoint: keyof McpHandlers) => async (c: Context<AppEnv>) => {
    const caller = c.get('caller');
    // The rule of /processes, applied before the MCP layer opens anything: an agent without a
    // stored key owns no process (403).
    callerProcesses(host.processes, caller);
    const mcp = (await handlers.get())[endpoint];
    if (c.req.method !== 'POST') return mcp.fetch(c.req.raw, caller);
    // The body is read here, bounded like every other route's (size, then depth and element
    // count on the text), and handed on parsed: the SDK would otherwise clone the request to
    // read it, which costs more than the rest of a trivial call.
    const text = await readBounded(c.req.raw, options.maxBodyBytes);
    if (text === undefined)
      throw cyrnelError('payload_too_large', `the request body is larger than ${options.maxBodyBytes} bytes`);
    const exceeded = jsonShapeExceeds(text, {
      maxDepth: options.maxJsonDepth,
      maxElements: options.maxJsonElements,
    });
    if (exceeded !== undefined)
      return jsonRpcError(
        400,
        -32600,
        exceeded === 'depth'
          ? `the JSON body is nested deeper than ${options.maxJsonDepth} levels`
          : `the JSON body has more than ${options.maxJsonElements} elements`,
      );
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return jsonRpcError(400, -32700, 'Parse error: the body is not JSON');
    }
    return mcp.fetch(c.req.raw, caller, body);
  };
  const app = new Hono<AppEnv>();
  app.all('/', serve('handler'));
  app.all('/tools', serve('tools'));
  const both: McpHttpHandler<Caller> = {
    fetch: async (request, caller, body) => (await handlers.get()).handler.fetch(request, caller, body),
    close: async () => {
      // Never loaded: nothing to close.
      const loaded = await handlers.loaded()?.catch(() => undefined);
      if (loaded) await Promise.all([loaded.handler.close(), loaded.tools.close()]);
    },
  };
  return { group: { path: '/mcp', app, auth: 'agent', rateLimited: true, cors: MCP_CORS }, handler: both };
}

/** The handler of `/mcp` itself (code mode), from the loaded `@cyrnel/mcp`. */
function mcpHandler(
  options: McpRouteOptions,
  createHostBackend: typeof import('@cyrnel/mcp').createHostBackend,
  createMcpHttpHandler: typeof import('@cyrnel/mcp').createMcpHttpHandler,
): McpHttpHandler<Caller> {
  const { host } = options;
  return createMcpHttpHandler<Caller>({
    backend: (caller) =>
      createHostBackend({
        host,
        processes: callerProcesses(host.processes, caller),
        // Who may decide approvals over HTTP may decide them when asked through the client; an
        // agent key never approves its own calls.
        ...(caller.role === 'admin' || caller.role === 'approver'
          ? { approver: { keyId: caller.keyId } }
          : {}),
        // Its tasks are the runs its key started, also for an admin, who may read every key's.
        owner: caller.keyId,
      }),
    // Instances are reused per key and catalog version (their tool descriptions list the services).
    reuseKey: (caller) => `${callerIdentity(caller)}\u0000${host.catalogVersion()}`,
    // A cancellation reaches only a request of the same key (processes are the key's own).
    identity: callerIdentity,
    // Clients listening are told when the catalog changes.
    catalogVersion: () => host.catalogVersion(),
    server: {
      version: options.version,
      maxCodeChars: options.maxCodeChars,
      ...(options.requestStateKey ? { requestStateKey: options.requestStateKey } : {}),
      tasks: { ttlMs: options.taskTtlMs ?? null },
    },
    maxRequestBodySize: options.maxBodyBytes,
  });
}

/**
 * The body as text, or undefined when it is larger than `maxBytes`. The rest of a body too large
 * is read and dropped (the app's body limit for route groups caps it): an answer sent while the
 * client is still uploading would reach it as a closed connection, not as the 413.
 */
async function readBounded(request: Request, maxBytes: number): Promise<string | undefined> {
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size <= maxBytes) chunks.push(chunk);
  }
  return size > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8');
}
