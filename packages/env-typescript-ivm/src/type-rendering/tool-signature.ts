import { type ToolDocsInput, withSharedSchemas } from '@cyrnel/sdk';
import { renderSchemaType } from './schema-type';

/** `(parameters: {...}) => Promise<...>`: how a tool's `invoke` is typed in the sandbox. */
export function renderToolSignature(
  tool: Pick<ToolDocsInput, 'inputSchema' | 'outputSchema' | 'observedOutputSchema' | 'schemas'>,
): string {
  const input = renderSchemaType(withSharedSchemas(tool.inputSchema, tool.schemas));
  // A shape the host observed stands for a result the tool does not declare.
  const output = renderSchemaType(
    tool.observedOutputSchema ?? withSharedSchemas(tool.outputSchema, tool.schemas),
  );
  return `(parameters: ${input}) => Promise<${output}>`;
}
