import type { JSONSchema, ToolDocsInput } from '@cyrnel/sdk';
import type { ToolDetailRow } from '../catalog/catalog-storage';
import { declaresOutput } from '../observed/declares-output';
import { OBSERVED_LIMITS } from '../observed/observed-limits';
import { readShape } from '../observed/read-shape';

/**
 * The shape observed of a tool's results, where the declarations show it: its own output schema
 * says nothing (the store answers none while its service does not observe outputs). Read as
 * `readShape` reads it, so a row another version (or a hand) wrote can never put more than types
 * into a declaration or an answer: such a row shows as none.
 *
 * @example
 * ```ts
 * observedOutputOf(row); // { type: 'string' } for an MCP tool without outputSchema that answered text
 * ```
 */
export function observedOutputOf(row: ToolDetailRow): JSONSchema | null {
  if (row.observedOutput === null || declaresOutput(row.outputSchema)) return null;
  return (readShape(row.observedOutput, OBSERVED_LIMITS) as JSONSchema | undefined) ?? null;
}

/**
 * What an environment renders a tool from (its docs, declarations, type checks): every caller
 * builds it here, so the observed result shape reaches each alike.
 *
 * @example
 * ```ts
 * await environment.generateToolDocs(toolDocsInput(row, await sharedSchemas.get(row.serviceId, row.serviceHash)));
 * ```
 */
export function toolDocsInput(
  row: ToolDetailRow,
  schemas: Readonly<Record<string, JSONSchema>> | undefined,
): ToolDocsInput {
  const observed = observedOutputOf(row);
  return {
    serviceId: row.serviceId,
    toolId: row.id,
    description: row.description,
    inputSchema: row.inputSchema,
    outputSchema: row.outputSchema,
    ...(observed ? { observedOutputSchema: observed } : {}),
    ...(schemas ? { schemas } : {}),
  };
}
