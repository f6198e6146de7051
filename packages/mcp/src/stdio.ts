import { randomBytes } from 'node:crypto';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { McpBackend } from './mcp-backend';
import { type CyrnelMcpServerOptions, createCyrnelMcpServer } from './server';

/**
 * Serve cyrnel's code mode over stdio (what Claude Desktop starts): MCP on stdin/stdout, nothing
 * else written to stdout. Resolves once stdin ends (the client went away) and the connection is
 * closed.
 *
 * @example
 * ```ts
 * await serveCyrnelStdio(createClientBackend(client), { version: '0.1.0' });
 * process.exit(0);
 * ```
 */
export async function serveCyrnelStdio(
  backend: McpBackend,
  options: CyrnelMcpServerOptions & { readonly onerror?: (error: Error) => void },
): Promise<void> {
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  // One key for the connection's instances: the retry answering an approval may reach another.
  const server = { requestStateKey: randomBytes(32), ...options };
  const handle = serveStdio(() => createCyrnelMcpServer(backend, server), {
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  await ended;
  await handle.close();
}
