import {
  cyrnelError,
  isPlainObject,
  type JSONSchema,
  type ToolAnnotations,
  type ToolDefinition,
  toIdentifier,
} from '@cyrnel/sdk';
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
 * server's (a tool without `outputSchema` returns anything); `annotations` are its hints
 * ({@link hintAnnotations}).
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
      annotations: hintAnnotations(tool.annotations),
    });
  }
  return definitions;
}

// Each MCP hint and the annotation it becomes, in the order the annotations are written (one
// order whatever the server's, so the definition's hash only changes with the hints themselves).
const HINTS = [
  ['readOnlyHint', 'readOnly'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'openWorld'],
] as const;

/**
 * A tool's annotations from its MCP hints: each hint that is a boolean, under cyrnel's name. MCP
 * gives an absent hint a default (`destructiveHint` true, `openWorldHint` true, …), but a server
 * that said nothing has not said it: an absent or malformed hint stays unknown, and the policies'
 * defaults for unknown tools decide.
 *
 * @example
 * ```ts
 * hintAnnotations({ readOnlyHint: true, openWorldHint: false, title: 'Echo' });
 * // { readOnly: true, openWorld: false }
 * ```
 */
export function hintAnnotations(hints: unknown): ToolAnnotations {
  const annotations: ToolAnnotations = {};
  if (!isPlainObject(hints)) return annotations;
  for (const [hint, annotation] of HINTS) {
    const value = Object.hasOwn(hints, hint) ? hints[hint] : undefined;
    if (typeof value === 'boolean') annotations[annotation] = value;
  }
  return annotations;
}

/** An input schema as cyrnel stores it: the server's object schema (an absent one takes any object). */
function objectSchema(schema: unknown): JSONSchema {
  if (!isPlainObject(schema)) return { type: 'object' };
  return schema as JSONSchema;
}
