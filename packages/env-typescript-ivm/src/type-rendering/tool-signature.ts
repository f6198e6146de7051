import { type ToolDocsInput, withSharedSchemas } from '@cyrnel/sdk';
import { renderSchemaType } from './schema-type';

/** `(parameters: {...}) => Promise<...>`: how a tool's `invoke` is typed in the sandbox. */
export function renderToolSignature(
  tool: Pick<ToolDocsInput, 'inputSchema' | 'outputSchema' | 'schemas'>,
): string {
  const input = renderSchemaType(withSharedSchemas(tool.inputSchema, tool.schemas));
  const output = renderSchemaType(withSharedSchemas(tool.outputSchema, tool.schemas));
  return `(parameters: ${input}) => Promise<${output}>`;
}
