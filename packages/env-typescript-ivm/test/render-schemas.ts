import type { ToolDocsInput } from '@cyrnel/sdk';

/** A tool of `serviceId` with this input schema and no output schema, for the renderer's tests. */
export function tool(
  serviceId: string,
  toolId: string,
  inputSchema: ToolDocsInput['inputSchema'],
): ToolDocsInput {
  return { serviceId, toolId, description: `${toolId} of ${serviceId}`, inputSchema, outputSchema: {} };
}

/** Definitions that each require the next `width` times: inlined, they render to its size budget. */
export function explosive(levels: number, width: number): ToolDocsInput['inputSchema'] {
  const $defs: Record<string, unknown> = {};
  for (let level = 0; level < levels; level++) {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < width; i++) {
      properties[`p${i}`] = level + 1 < levels ? { $ref: `#/$defs/D${level + 1}` } : { type: 'string' };
    }
    $defs[`D${level}`] = { type: 'object', properties, required: Object.keys(properties) };
  }
  return { $ref: '#/$defs/D0', $defs };
}
