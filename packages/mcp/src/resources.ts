import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import type { McpBackend } from './mcp-backend';

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
          text: await backend.tools.docs(String(variables.serviceId), String(variables.toolId)),
        },
      ],
    }),
  );
}
