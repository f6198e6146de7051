import { createMcpHandler } from '@modelcontextprotocol/server';
import { createCatalogWatch } from './catalog-watch';
import type { DirectToolsCaller, DirectToolsHost } from './direct-tools-host';
import { createDirectToolsServer } from './direct-tools-server';
import type { McpHttpHandler } from './http';
import { createMcpHttpFront } from './http-front';

/** The list direct tools page: its cursors are checked by `tools/list` itself. */
const PAGED: ReadonlySet<string> = new Set(['tools/list']);

/** Options of {@link createDirectToolsHttpHandler}. */
export interface DirectToolsHttpOptions<Caller> {
  /** The direct tools of the host, shared by every request. */
  readonly tools: DirectToolsHost;
  /** Who one request's caller is, as the direct tools need it (processes, key rules, approver). */
  caller(caller: Caller): DirectToolsCaller;
  /**
   * Who the caller is (its key): a `notifications/cancelled` sent in a request of its own cancels
   * the caller's call of that id, never another's.
   */
  readonly identity?: ((caller: Caller) => string) | undefined;
  /** Server version reported to clients. */
  readonly version: string;
  /** Largest request body in bytes (413 beyond). Default 4 MiB. */
  readonly maxRequestBodySize?: number;
  /**
   * How often the catalog version is looked at while 2026-07-28 clients listen
   * (`subscriptions/listen`): a change is announced as `notifications/tools/list_changed`. Default
   * 1,000 ms; 0 announces nothing (and `listChanged` is not advertised).
   */
  readonly listChangedPollMs?: number;
  /** Out-of-band errors of the MCP layer (logging only). */
  readonly onerror?: (error: Error) => void;
}

/**
 * Direct tools over Streamable HTTP, without server-side sessions: each request is served by a
 * small server of its caller (no tool is registered: its `tools/list` and `tools/call` read the
 * shared catalog), the current protocol revision and, statelessly, the 2025 ones, behind the same
 * front as `/mcp` (`createMcpHttpFront`: refusals, batches, cancellations). Clients that listen
 * are told when the catalog changes; 2025-era clients over stateless HTTP have no stream for it,
 * so it is not advertised to them. Authentication, Host and Origin checks are the caller's.
 *
 * @example
 * ```ts
 * const tools = createDirectToolsHost({ host });
 * const handler = createDirectToolsHttpHandler({ tools, version, caller: (c) => ({ processes: callerProcesses(host.processes, c) }) });
 * app.all('/mcp/tools', (c) => handler.fetch(c.req.raw, c.get('caller')));
 * ```
 */
export function createDirectToolsHttpHandler<Caller>(
  options: DirectToolsHttpOptions<Caller>,
): McpHttpHandler<Caller> {
  const { tools, onerror } = options;
  const maxBytes = options.maxRequestBodySize ?? 4 * 1024 * 1024;
  const pollMs = options.listChangedPollMs ?? 1000;
  const watch =
    pollMs > 0 ? createCatalogWatch({ version: () => tools.version(), pollMs, onerror }) : undefined;
  const handler = createMcpHandler(
    (context) => {
      // The caller travels in the SDK's pass-through `authInfo`; the token itself is never needed here.
      const caller = context.authInfo?.extra?.caller as Caller | undefined;
      if (caller === undefined) throw new Error('cyrnel mcp tools: a request without its caller');
      const legacy = context.era === 'legacy';
      const requestSignal = context.requestInfo?.signal;
      const source = tools.source({ ...options.caller(caller), ...(requestSignal ? { requestSignal } : {}) });
      return createDirectToolsServer(source, {
        version: options.version,
        verifyRequestState: tools.codec.verify,
        // A 2025-era request is served statelessly: no request reaches its client and comes back,
        // and no notification goes out but in a response.
        legacyClientRequests: !legacy,
        listChanged: !legacy && watch !== undefined,
      });
    },
    { legacy: 'stateless', maxRequestBodySize: maxBytes, ...(onerror ? { onerror } : {}) },
  );
  let seen: string | undefined;
  const unsubscribe = watch?.subscribe((version) => {
    if (seen !== undefined && version !== seen) handler.notify.toolsChanged();
    seen = version;
  });
  const sdkFetch = (request: Request, caller: Caller, body?: unknown) =>
    handler.fetch(request, {
      authInfo: { token: '', clientId: 'cyrnel', scopes: [], extra: { caller } },
      ...(body === undefined ? {} : { parsedBody: body }),
    });
  return {
    fetch: createMcpHttpFront(sdkFetch, { maxBytes, identity: options.identity, pagedLists: PAGED }),
    async close() {
      unsubscribe?.();
      watch?.close();
      await handler.close();
    },
  };
}
