import { randomBytes } from 'node:crypto';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { createCatalogWatch } from './catalog-watch';
import { createMcpHttpFront } from './http-front';
import type { McpBackend } from './mcp-backend';
import { type CyrnelMcpServerOptions, createCyrnelMcpServer } from './server';
import { createServerPool } from './server-pool';
import { liftTaskRequest } from './task-request';

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
  /**
   * Who the caller is (its key): a `notifications/cancelled` cancels the caller's own request of
   * that id, never another's. Without it no cancellation sent in a request of its own is matched.
   */
  identity?(caller: Caller): string;
  /**
   * A token that changes whenever what agents see of the catalog changes (the host's catalog
   * version), looked at every `catalogPollMs`: a change is announced to the clients listening
   * (`subscriptions/listen` of 2026-07-28 clients), which are then told `listChanged`. Without
   * it, and to 2025-era clients (served statelessly, with no stream to carry it), `listChanged`
   * is not advertised.
   */
  catalogVersion?(): string;
  /** How often `catalogVersion` is looked at, in ms. Default 1,000. */
  readonly catalogPollMs?: number;
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
 * caller: a fresh one, or with `reuseKey` an idle one from a bounded pool. Before any instance
 * sees a POST, invalid params are answered `-32602`, batches where the protocol version has none
 * `-32600`, and a `notifications/cancelled` cancels the caller's request of that id. Authentication
 * and the Host/Origin checks are the caller's (cyrnel's middleware).
 *
 * @example
 * ```ts
 * const mcp = createMcpHttpHandler({ backend: (caller) => createHostBackend({ host }), server: { version } });
 * app.all('/mcp', (c) => mcp.fetch(c.req.raw, c.get('caller')));
 * ```
 */
export function createMcpHttpHandler<Caller>(options: McpHttpHandlerOptions<Caller>): McpHttpHandler<Caller> {
  const pool = createServerPool(options.maxIdleServers ?? 64);
  const maxBytes = options.maxRequestBodySize ?? 4 * 1024 * 1024;
  // One key for every instance: a client's retry answering an approval may reach any of them.
  const server = { requestStateKey: randomBytes(32), ...options.server };
  const { catalogVersion, onerror } = options;
  const watch = catalogVersion
    ? createCatalogWatch({ version: catalogVersion, pollMs: options.catalogPollMs ?? 1000, onerror })
    : undefined;
  const handler = createMcpHandler(
    (context): McpServer | Promise<McpServer> => {
      // The caller travels in the SDK's pass-through `authInfo`; the token itself is never needed here.
      const caller = context.authInfo?.extra?.caller as Caller | undefined;
      if (caller === undefined) throw new Error('cyrnel mcp: a request without its caller');
      const key = options.reuseKey?.(caller);
      // Stateless 2025-era serving can carry no request to the client and back, and no
      // notification outside a response: list changes reach only 2026-07-28 clients that listen.
      const served =
        context.era === 'legacy'
          ? { ...server, legacyClientRequests: false, listChanged: false }
          : { ...server, listChanged: watch !== undefined };
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
    { legacy: 'stateless', maxRequestBodySize: maxBytes, ...(onerror ? { onerror } : {}) },
  );
  let version: string | undefined;
  watch?.subscribe((now) => {
    // Instances are built per request: each renders the catalog as it is, only listeners need telling.
    if (version !== undefined && now !== version) {
      handler.notify.toolsChanged();
      handler.notify.resourcesChanged();
    }
    version = now;
  });
  const sdkFetch = (request: Request, caller: Caller, body?: unknown) =>
    handler.fetch(request, {
      authInfo: { token: '', clientId: 'cyrnel', scopes: [], extra: { caller } },
      // A 2025-11-25 call's `params.task`, where the tool's handler can read it.
      ...(body === undefined ? {} : { parsedBody: liftTaskRequest(body) }),
    });
  return {
    fetch: createMcpHttpFront(sdkFetch, { maxBytes, identity: options.identity?.bind(options) }),
    async close() {
      watch?.close();
      await handler.close();
    },
  };
}
