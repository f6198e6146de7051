import { type McpServer, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { McpBackend } from './mcp-backend';

/**
 * One tool's docs, or the protocol's "resource not found" (`-32602`, as for a URI nothing
 * matches) when the service or tool does not exist: a status class both backends' errors carry.
 */
async function toolDocs(backend: McpBackend, uri: URL, serviceId: string, toolId: string): Promise<string> {
  try {
    return await backend.tools.docs(serviceId, toolId);
  } catch (error) {
    if ((error as { code?: unknown } | undefined)?.code === 'not_found')
      throw new ResourceNotFoundError(uri.href);
    throw error;
  }
}

/** Register the resources: the runtime docs, every tool's declarations, and one tool's docs. */
export function registerResources(server: McpServer, backend: McpBackend): void {
  server.registerResource(
    'runtime-docs',
    'cyrnel://docs/runtime',
    { title: 'Runtime docs', description: 'How code runs in the sandbox', mimeType: 'text/markdown' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await backend.environment.docs() }],
    }),
  );
  server.registerResource(
    'types',
    'cyrnel://types',
    {
      title: 'All tool types',
      description: 'TypeScript declarations of every enabled tool',
      mimeType: 'text/plain',
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: await backend.environment.types() }],
    }),
  );
  server.registerResource(
    'tool-docs',
    new ResourceTemplate('cyrnel://tools/{serviceId}/{toolId}/docs', { list: undefined }),
    { title: 'Tool docs', description: "One tool's docs", mimeType: 'text/markdown' },
    async (uri, variables) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/markdown',
          text: await toolDocs(backend, uri, String(variables.serviceId), String(variables.toolId)),
        },
      ],
    }),
  );
}
