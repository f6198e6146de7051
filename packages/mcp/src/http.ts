import { randomBytes } from 'node:crypto';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { McpBackend } from './mcp-backend';
import { type CyrnelMcpServerOptions, createCyrnelMcpServer } from './server';
import { createServerPool } from './server-pool';

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpHandlerOptions<Caller> {
  /** The backend for one request's caller (e.g. processes scoped to the caller's key). */
  backend(caller: Caller): McpBackend;
  readonly server: CyrnelMcpServerOptions;
  /** Largest request body in bytes (413 beyond). Default 4 MiB. */
  readonly maxRequestBodySize?: number;
  /**
   * Reuse server instances between requests: callers with the same key share idle instances
   * (built with the first one's backend), so the key must say everything the backend and the
   * server's description depend on (e.g. the caller's key and the catalog's version). Undefined
   * (or no function): a fresh instance per request.
   */
  reuseKey?(caller: Caller): string | undefined;
  /** Most idle instances kept for reuse, over all keys. Default 64. */
  readonly maxIdleServers?: number;
  /** Out-of-band errors of the MCP layer (logging only). */
  readonly onerror?: (error: Error) => void;
}

/** A web-standard MCP endpoint: `fetch(request, caller)` answers one HTTP request. */
export interface McpHttpHandler<Caller> {
  /**
   * Answer one request. `parsedBody` is the POST body already read and parsed by the caller (who
   * bounded its size and shape); without it the handler reads the body itself.
   */
  fetch(request: Request, caller: Caller, parsedBody?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The Streamable HTTP endpoint (no server-side sessions): the current protocol revision and,
 * statelessly, the 2025 one (`initialize`), each request served by a server instance of its
 * caller: a fresh one, or with `reuseKey` an idle one from a bounded pool. Authentication and the Host/Origin checks are the caller's (cyrnel's middleware).
 *
 * @example
 * ```ts
 * const mcp = createMcpHttpHandler({ backend: (caller) => createHostBackend({ host }), server: { version } });
 * app.all('/mcp', (c) => mcp.fetch(c.req.raw, c.get('caller')));
 * ```
 */
export function createMcpHttpHandler<Caller>(options: McpHttpHandlerOptions<Caller>): McpHttpHandler<Caller> {
  const pool = createServerPool(options.maxIdleServers ?? 64);
  // One key for every instance: a client's retry answering an approval may reach any of them.
  const server = { requestStateKey: randomBytes(32), ...options.server };
  const handler = createMcpHandler(
    (context) => {
      // The caller travels in the SDK's pass-through `authInfo`; the token itself is never needed here.
      const caller = context.authInfo?.extra?.caller as Caller | undefined;
      if (caller === undefined) throw new Error('cyrnel mcp: a request without its caller');
      const key = options.reuseKey?.(caller);
      // Stateless 2025-era serving cannot carry a request to the client and back.
      const served = context.era === 'legacy' ? { ...server, legacyClientRequests: false } : server;
      // A reused instance reads the client's going away from each call's own HTTP request.
      if (key !== undefined)
        return pool.acquire(`${context.era}\u0000${key}`, () =>
          createCyrnelMcpServer(options.backend(caller), served),
        );
      const requestSignal = context.requestInfo?.signal;
      return createCyrnelMcpServer(options.backend(caller), {
        ...served,
        ...(requestSignal ? { requestSignal } : {}),
      });
    },
    {
      legacy: 'stateless',
      maxRequestBodySize: options.maxRequestBodySize ?? 4 * 1024 * 1024,
      ...(options.onerror ? { onerror: options.onerror } : {}),
    },
  );
  return {
    fetch: (request, caller, parsedBody) =>
      handler.fetch(request, {
        authInfo: { token: '', clientId: 'cyrnel', scopes: [], extra: { caller } },
        ...(parsedBody === undefined ? {} : { parsedBody }),
      }),
    close: () => handler.close(),
  };
}
