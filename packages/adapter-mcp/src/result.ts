import { cyrnelError } from '@cyrnel/sdk';
import type { CallToolResult } from '@modelcontextprotocol/client';

/**
 * What `invoke` resolves to for an MCP tool result: `structuredContent` when present; else a
 * single text content parsed as JSON when it is JSON, else its text; several contents an array
 * of the same per item; images, audio, resources and links as the MCP content objects they are.
 * A result with `isError` rejects with the server's text (reason `tool_error`).
 *
 * @example
 * ```ts
 * resultValue({ content: [{ type: 'text', text: '{"sum":3}' }] }); // { sum: 3 }
 * ```
 */
export function resultValue(result: CallToolResult, tool: string): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError) {
    const text = content
      .filter((item) => item.type === 'text')
      .map((item) => (item as { text: string }).text)
      .join('\n')
      .slice(0, 4_000);
    throw cyrnelError(
      'tool_error',
      `tool ${tool} failed: ${text || 'the MCP server reported an error without text'}`,
    );
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return result.structuredContent;
  const values = content.map((item) =>
    item.type === 'text' ? textValue((item as { text: string }).text) : item,
  );
  if (values.length === 0) return null;
  return values.length === 1 ? values[0] : values;
}

function textValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '' || !'{["-0123456789tfn'.includes(trimmed[0] as string)) return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}
