import type { ToolDocsInput } from '@cyrnel/sdk';

/** What a tool's comment says when its result type is the shape the host observed. */
export const OBSERVED_NOTE =
  'Its result type is observed from past results (it declares none) and may be incomplete.';

/**
 * The tool as rendered: a result shape the host observed (`observedOutputSchema`, for a tool whose
 * output schema says nothing) becomes its `outputSchema`, and stays named so the comment can say so.
 *
 * @example
 * ```ts
 * withObservedOutput({ ...tool, outputSchema: {}, observedOutputSchema: { type: 'string' } }).outputSchema; // { type: 'string' }
 * ```
 */
export function withObservedOutput(tool: ToolDocsInput): ToolDocsInput {
  return tool.observedOutputSchema ? { ...tool, outputSchema: tool.observedOutputSchema } : tool;
}
