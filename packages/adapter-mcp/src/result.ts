import { cyrnelError, isPlainObject, type JsonText, jsonText } from '@cyrnel/sdk';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { type AnswerLimits, pastLimits, textValue } from './answer-worker';

/** How {@link resultValue} reads a result. */
export interface ResultOptions {
  /** The structure a text parsed as JSON may have (past it: `upstream_answer_too_large`). */
  readonly limits: AnswerLimits;
  /** The `structuredContent` key of a result a worker already turned into JSON text. */
  readonly jsonTextKey: string;
  /** The JSON text waiting under a token (see `createJsonTextStash`). */
  readonly takeJsonText: (token: string) => string | undefined;
}

/**
 * What `invoke` resolves to for an MCP tool result: `structuredContent` when present; else a
 * single text content parsed as JSON when it is JSON, else its text; several contents an array
 * of the same per item; images, audio, resources and links as the MCP content objects they are.
 * A result with `isError` rejects with the server's text (reason `tool_error`). A result read in
 * a worker is the JSON text of that value already, handed on unparsed ({@link JsonText}).
 *
 * @example
 * ```ts
 * resultValue({ content: [{ type: 'text', text: '{"sum":3}' }] }, 'calc.add', options); // { sum: 3 }
 * ```
 */
export function resultValue(result: CallToolResult, tool: string, options: ResultOptions): unknown {
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
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    const token = isPlainObject(structured) ? structured[options.jsonTextKey] : undefined;
    if (typeof token === 'string' && Object.keys(structured).length === 1) {
      const text = options.takeJsonText(token);
      if (text === undefined)
        throw cyrnelError(
          'upstream_failed',
          `tool ${tool}: the MCP server's answer was dropped before it was read`,
        );
      return jsonText(text);
    }
    return structured;
  }
  const values = content.map((item) =>
    item.type === 'text' ? textValue((item as { text: string }).text, options.limits) : item,
  );
  if (values.some(pastLimits))
    throw cyrnelError(
      'upstream_answer_too_large',
      `tool ${tool}: the MCP server's answer nests deeper than ${options.limits.maxDepth} levels or has more than ${options.limits.maxElements} elements`,
    );
  if (values.length === 0) return null;
  return values.length === 1 ? values[0] : values;
}
