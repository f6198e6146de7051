import type { McpServer } from '@modelcontextprotocol/server';
import type { McpBackend } from './mcp-backend';
import type { ToolInputs } from './tool-schemas';

/** The first line of a description, at most `max` characters. */
const firstLine = (text: string, max: number) => text.split('\n')[0]?.slice(0, max) ?? '';

/**
 * Split `service.tool` names into the callable ones, whose declarations are rendered together,
 * and the rest (malformed, unknown or disabled), listed by name.
 */
async function typesOf(
  backend: McpBackend,
  names: readonly string[],
  types: readonly string[],
): Promise<{ declarations: string; unknown: string[] }> {
  const unknown: string[] = [];
  const known: string[] = [];
  for (const name of names) {
    const [serviceId, toolId, ...rest] = name.split('.');
    const found =
      serviceId && toolId && rest.length === 0
        ? await backend.tools.get(serviceId, toolId).then(
            (tool) => tool.effectivelyEnabled,
            () => false,
          )
        : false;
    (found ? known : unknown).push(name);
  }
  // Stubs by name with them (or alone); names found nowhere are listed in the declarations.
  const selection = {
    ...(known.length > 0 ? { tools: known } : {}),
    ...(types.length > 0 ? { types: [...types] } : {}),
  };
  return {
    declarations: known.length > 0 || types.length > 0 ? await backend.environment.types(selection) : '',
    unknown,
  };
}

/** Register `search_tools` and `get_tool_types`: finding tools, then reading their declarations. */
export function registerDiscoveryTools(server: McpServer, backend: McpBackend, inputs: ToolInputs): void {
  server.registerTool(
    'search_tools',
    {
      title: 'Search tools',
      description:
        'Find the tools of the services installed in cyrnel, ranked best first. Search by words of what you want to do ("create issue", "forecast") or by a tool id ("issues_create" or "github.issues_create"). Answers "service.tool" ids with a one-line description; then call get_tool_types for the ones you will use.',
      inputSchema: inputs.search,

      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, serviceId, limit }) => {
      const { items } = await backend.tools.list({
        query,
        enabled: true,
        limit: limit ?? 10,
        ...(serviceId ? { serviceId } : {}),
      });
      const lines = items.map(
        (tool) =>
          `${tool.serviceId}.${tool.id} — ${tool.name}${tool.description ? `: ${firstLine(tool.description, 200)}` : ''}`,
      );
      return {
        content: [
          { type: 'text', text: lines.length > 0 ? lines.join('\n') : `No tool matches "${query}".` },
        ],
        structuredContent: {
          tools: items.map((tool) => ({
            tool: `${tool.serviceId}.${tool.id}`,
            name: tool.name,
            description: firstLine(tool.description, 200),
          })),
        },
      };
    },
  );

  server.registerTool(
    'get_tool_types',
    {
      title: 'Get tool types',
      description:
        'The TypeScript declarations of the named tools ("service.tool" ids from search_tools): their exact parameters and results, shared types included once. Read them before writing code for execute_typescript. Unknown names are listed, not fatal. Types left out to keep the answer small are written CyrnelStub<"name">: pass those names as types to get them.',
      inputSchema: inputs.types,

      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ tools = [], types = [] }) => {
      const { declarations, unknown } = await typesOf(backend, tools, types);
      const note = unknown.length > 0 ? `\n// Unknown or disabled tools: ${unknown.join(', ')}` : '';
      return {
        content: [{ type: 'text', text: `${declarations}${note}`.trim() || '// no known tools' }],
        structuredContent: { declarations, unknown },
      };
    },
  );
}
