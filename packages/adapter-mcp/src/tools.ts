import { cyrnelError, isPlainObject, type JSONSchema, type ToolDefinition, toIdentifier } from '@cyrnel/sdk';
import type { Tool } from '@modelcontextprotocol/client';

/** Most tools one server may list. */
export const MAX_TOOLS = 2_000;

/** What the adapter keeps of a tool: its name on the wire. */
export interface ToolDomain extends Record<string, unknown> {
  readonly name: string;
}

/**
 * The server's tools as cyrnel tools: ids are the names made identifiers (`toIdentifier`, the
 * rules of OpenAPI ids); two names that become the same id fail naming both; the original name
 * travels in `adapterDomain` and is what calls use. `inputSchema` and `outputSchema` are the
 * server's (a tool without `outputSchema` returns anything).
 *
 * @example
 * ```ts
 * toolDefinitions([{ name: 'read-graph', inputSchema: { type: 'object' } }]);
 * // [{ id: 'read_graph', name: 'read-graph', adapterDomain: { name: 'read-graph' }, … }]
 * ```
 */
export function toolDefinitions(tools: readonly Tool[]): ToolDefinition[] {
  if (tools.length > MAX_TOOLS)
    throw cyrnelError('invalid_definition', `the MCP server lists more than ${MAX_TOOLS} tools`);
  const byId = new Map<string, string>();
  const definitions: ToolDefinition[] = [];
  for (const tool of tools) {
    const id = toIdentifier(tool.name);
    if (id === '')
      throw cyrnelError(
        'invalid_definition',
        `the MCP tool name "${tool.name}" has no character an identifier can keep`,
      );
    const other = byId.get(id.toLowerCase());
    if (other !== undefined)
      throw cyrnelError(
        'invalid_definition',
        `the MCP tools "${other}" and "${tool.name}" would both be tool ${id}: cyrnel cannot tell them apart`,
        { details: [{ path: 'tools', message: `"${other}" and "${tool.name}" collide as ${id}` }] },
      );
    byId.set(id.toLowerCase(), tool.name);
    const title = tool.title ?? tool.annotations?.title;
    definitions.push({
      id,
      name: typeof title === 'string' && title.trim() !== '' ? title : tool.name,
      description: tool.description ?? '',
      inputSchema: objectSchema(tool.inputSchema),
      outputSchema: isPlainObject(tool.outputSchema) ? (tool.outputSchema as JSONSchema) : {},
      adapterDomain: { name: tool.name } satisfies ToolDomain,
      keywords: tool.name === id ? [] : [tool.name],
    });
  }
  return definitions;
}

/** An input schema as cyrnel stores it: the server's object schema (an absent one takes any object). */
function objectSchema(schema: unknown): JSONSchema {
  if (!isPlainObject(schema)) return { type: 'object' };
  return schema as JSONSchema;
}
