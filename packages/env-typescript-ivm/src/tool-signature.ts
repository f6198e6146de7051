import type { ToolDocsInput } from '@cyrnel/sdk';
import { renderSchemaType } from './schema-type';

/** `(parameters: {...}) => Promise<...>`: how a tool's `invoke` is typed in the sandbox. */
export function renderToolSignature(tool: Pick<ToolDocsInput, 'inputSchema' | 'outputSchema'>): string {
  return `(parameters: ${renderSchemaType(tool.inputSchema)}) => Promise<${renderSchemaType(tool.outputSchema)}>`;
}
