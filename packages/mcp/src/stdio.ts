import { randomBytes } from 'node:crypto';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createBackendCatalogWatch } from './catalog-watch';
import type { McpBackend } from './mcp-backend';
import { type CyrnelMcpServerOptions, createCyrnelMcpServer } from './server';
import { createStdioTransport } from './stdio-transport';
import { liftTaskRequest } from './task-request';

/** Options of {@link serveCyrnelStdio}. */
export interface CyrnelStdioOptions extends CyrnelMcpServerOptions {
  readonly onerror?: (error: Error) => void;
  /** Least time between two looks at the catalog, in ms (`pollMs` of `createBackendCatalogWatch`). */
  readonly catalogPollMs?: number;
}

/**
 * Serve cyrnel's code mode over stdio (what Claude Desktop starts): MCP on stdin/stdout, nothing
 * else written to stdout. The catalog is watched for the connection's life: a change renders
 * `execute_typescript`'s description again and tells the client its lists changed. Resolves once
 * stdin ends (the client went away) and the connection is closed.
 *
 * @example
 * ```ts
 * await serveCyrnelStdio(createClientBackend(client), { version: '0.1.0' });
 * process.exit(0);
 * ```
 */
export async function serveCyrnelStdio(backend: McpBackend, options: CyrnelStdioOptions): Promise<void> {
  const { onerror, catalogPollMs, ...serverOptions } = options;
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  const watch = createBackendCatalogWatch(backend, {
    ...(catalogPollMs === undefined ? {} : { pollMs: catalogPollMs }),
    ...(options.inlineTypesUpTo === undefined ? {} : { inlineTypesUpTo: options.inlineTypesUpTo }),
    onerror,
  });
  // One key for the connection's instances: the retry answering an approval may reach another.
  const server = { requestStateKey: randomBytes(32), ...serverOptions, catalogChanges: watch };
  const handle = serveStdio(() => createCyrnelMcpServer(backend, server), {
    // A 2025-11-25 call's `params.task`, where the tool's handler can read it.
    transport: createStdioTransport({ inbound: liftTaskRequest }),
    ...(onerror ? { onerror } : {}),
  });
  try {
    await ended;
    await handle.close();
  } finally {
    watch.close();
  }
}
