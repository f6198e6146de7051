import { type CyrnelHost, cyrnelError, scopeProcesses } from '@cyrnel/core';
import type { AppEnv, Caller, RouteGroup } from '@cyrnel/http';
import { createHostBackend, createMcpHttpHandler, type McpHttpHandler } from '@cyrnel/mcp';
import { Hono } from 'hono';

/** Options of {@link mcpRouteGroup}. */
export interface McpRouteOptions {
  readonly host: CyrnelHost;
  readonly version: string;
  /** Largest MCP request body: the code-size limit plus room for the JSON-RPC envelope. */
  readonly maxBodyBytes: number;
  /** Largest `code` of `execute_typescript`, in characters. */
  readonly maxCodeChars: number;
}

/**
 * `/mcp`: cyrnel's code mode as a Streamable HTTP MCP endpoint, behind the same key, Host and
 * Origin checks as the rest of the API. Agent keys may use it; their processes are their own,
 * exactly as on `/processes`.
 */
export function mcpRouteGroup(options: McpRouteOptions): {
  group: RouteGroup;
  handler: McpHttpHandler<Caller>;
} {
  const { host } = options;
  const handler = createMcpHttpHandler<Caller>({
    backend: ({ keyId, role }) => {
      const processes =
        role === 'admin' || keyId === null
          ? scopeProcesses(host.processes, { keyId, ownOnly: false })
          : scopeProcesses(host.processes, { keyId, ownOnly: true });
      return createHostBackend({ host, processes });
    },
    server: { version: options.version, maxCodeChars: options.maxCodeChars },
    maxRequestBodySize: options.maxBodyBytes,
  });
  const app = new Hono<AppEnv>();
  app.all('/', (c) => {
    const caller = c.get('caller');
    if (caller.role !== 'admin' && caller.keyId === null)
      throw cyrnelError('forbidden', `the ${caller.role} role needs a stored key to own processes`);
    return handler.fetch(c.req.raw, caller);
  });
  return { group: { path: '/mcp', app, auth: 'agent' }, handler };
}
