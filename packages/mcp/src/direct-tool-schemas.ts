import type { ToolAnnotations as CyrnelAnnotations, JSONSchema } from '@cyrnel/sdk';
import type { ToolDetail } from '@cyrnel/sdk/api';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';

/** Limits of what one direct tool's listing may carry. */
export interface DirectToolLimits {
  /** The largest input or output schema, as JSON characters (its shared schemas included). */
  readonly maxSchemaChars: number;
  /** The longest description; longer ones are cut with a marker. */
  readonly maxDescriptionChars: number;
}

/** A catalog tool made an MCP tool, or why it cannot be one. */
export type BuiltTool =
  | {
      readonly tool: Tool;
      /** The advertised output schema: results are checked against it before they are sent. */
      readonly outputSchema: JSONSchema | undefined;
      /** Its JSON characters, for the byte budget of a page. */
      readonly size: number;
    }
  | { readonly leftOut: 'input-schema-type' | 'input-schema-size' };

/** cyrnel's annotations as MCP's hints; unknown ones stay absent (absent means unknown in both). */
export function mcpAnnotations(annotations: CyrnelAnnotations, title: string): ToolAnnotations {
  const { readOnly, destructive, idempotent, openWorld } = annotations;
  return {
    title,
    ...(readOnly === undefined ? {} : { readOnlyHint: readOnly }),
    ...(destructive === undefined ? {} : { destructiveHint: destructive }),
    ...(idempotent === undefined ? {} : { idempotentHint: idempotent }),
    ...(openWorld === undefined ? {} : { openWorldHint: openWorld }),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords that say nothing about the value: a schema of only these accepts anything. */
const ANNOTATION_KEYWORDS = new Set(['$schema', '$id', '$comment', 'title', 'description', '$defs']);

/**
 * The output schema as advertised: absent when it accepts anything (nothing to promise), `type:
 * 'object'` added when every branch of its root `oneOf`/`anyOf` is an object (an OpenAPI tool's
 * `{status, headers, body}` per response), so a 2025-era client gets the object itself rather than
 * the SDK's `{result}` wrapping of a non-object root.
 */
export function advertisedOutput(schema: JSONSchema): JSONSchema | undefined {
  if (Object.keys(schema).every((key) => ANNOTATION_KEYWORDS.has(key))) return undefined;
  if (schema.type !== undefined) return schema;
  const branches = schema.oneOf ?? schema.anyOf;
  const objects =
    Array.isArray(branches) &&
    branches.length > 0 &&
    branches.every((branch) => isObject(branch) && branch.type === 'object');
  return objects ? { type: 'object', ...schema } : schema;
}

const cut = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters]`;

/**
 * One catalog tool as an MCP tool named `name`: its description, its schemas with the shared
 * schemas they reach in `$defs` (as the tools API answers them), its annotations. Left out when
 * its input schema is not an object (MCP requires one) or larger than the limit; an output schema
 * larger than the limit is dropped (results then come as text only).
 *
 * @example
 * ```ts
 * const built = buildTool('shop__getUser', await host.tools.get('shop', 'getUser'), limits);
 * ```
 */
export function buildTool(name: string, detail: ToolDetail, limits: DirectToolLimits): BuiltTool {
  const input = detail.inputSchema;
  if (!isObject(input) || input.type !== 'object') return { leftOut: 'input-schema-type' };
  const inputText = JSON.stringify(input);
  if (inputText.length > limits.maxSchemaChars) return { leftOut: 'input-schema-size' };
  let outputSchema = advertisedOutput(detail.outputSchema);
  if (outputSchema && JSON.stringify(outputSchema).length > limits.maxSchemaChars) outputSchema = undefined;
  const title = detail.name || detail.id;
  const tool: Tool = {
    name,
    title,
    description: cut(detail.description || title, limits.maxDescriptionChars),
    inputSchema: input as Tool['inputSchema'],
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
    annotations: mcpAnnotations(detail.annotations, title),
  };
  return { tool, outputSchema, size: JSON.stringify(tool).length };
}
