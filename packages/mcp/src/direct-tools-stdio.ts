import type { Server, ServerContext } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { CatalogChanges } from './catalog-watch';
import { createDirectToolsServer, type DirectToolsSource } from './direct-tools-server';
import { createStdioTransport } from './stdio-transport';

/** Options of {@link serveDirectToolsStdio}. */
export interface DirectToolsStdioOptions {
  /** Server version reported to clients. */
  readonly version: string;
  /** Verifies the sealed state of a retry answering an approval. */
  readonly verifyRequestState?: (state: string, ctx: ServerContext) => unknown;
  /** The catalog's version: when it changes, the client is told (`notifications/tools/list_changed`). */
  readonly changes?: CatalogChanges;
  readonly onerror?: (error: Error) => void;
}

/**
 * Serve direct tools over stdio (for clients that start a command): MCP on stdin/stdout, nothing
 * else written to stdout. The connection's server tells the client when `changes` says the tools
 * changed. Resolves once stdin ends (the client went away) and the connection is closed.
 *
 * @example
 * ```ts
 * const tools = createDirectToolsHost({ host });
 * await serveDirectToolsStdio(tools.source({ processes: host.processes }), { version: '0.1.0' });
 * ```
 */
export async function serveDirectToolsStdio(
  source: DirectToolsSource,
  options: DirectToolsStdioOptions,
): Promise<void> {
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  const servers = new Set<Server>();
  let seen: string | undefined;
  const unsubscribe = options.changes?.subscribe((version) => {
    const changed = seen !== undefined && version !== seen;
    seen = version;
    if (!changed) return;
    for (const server of servers)
      if (server.transport !== undefined) server.sendToolListChanged().catch(() => undefined);
  });
  const handle = serveStdio(
    () => {
      const server = createDirectToolsServer(source, {
        version: options.version,
        ...(options.verifyRequestState ? { verifyRequestState: options.verifyRequestState } : {}),
        listChanged: options.changes !== undefined,
      });
      servers.add(server);
      const onclose = server.onclose;
      server.onclose = () => {
        servers.delete(server);
        onclose?.();
      };
      return server;
    },
    {
      // Bad lines answered as on code mode's stdio; `tools/list` is paged here, its cursors its own.
      transport: createStdioTransport({ pagedLists: new Set(['tools/list']) }),
      ...(options.onerror ? { onerror: options.onerror } : {}),
    },
  );
  try {
    await ended;
    await handle.close();
  } finally {
    unsubscribe?.();
  }
}
