import type { SchemaChecker } from '@cyrnel/core';
import type { ErrorReason, JSONSchema } from '@cyrnel/sdk';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ProcessView } from './process-view';

/** What turning a finished direct call into an MCP result needs. */
export interface DirectResultOptions {
  /** Checks a result against the tool's output schema off the main thread. */
  readonly checker: SchemaChecker;
  /** Text beyond this many characters is cut when the whole result is in `structuredContent`. */
  readonly maxTextChars: number;
}

/** The `_meta` keys a direct call's result carries. */
export const META_PROCESS = 'cyrnel/processId';
export const META_REASON = 'cyrnel/reason';

/**
 * An `isError` result: the stable reason first (what a client branches on), then the message, and
 * both in `_meta` with the process that recorded the call (the audit).
 */
export function errorResult(
  reason: ErrorReason,
  message: string,
  processId: number | undefined,
  extra = '',
): CallToolResult {
  return {
    content: [{ type: 'text', text: `${reason}: ${message}${extra}` }],
    isError: true,
    _meta: { [META_REASON]: reason, ...(processId === undefined ? {} : { [META_PROCESS]: processId }) },
  };
}

const cut = (text: string, max: number) =>
  text.length <= max
    ? text
    : `${text.slice(0, max)}\n[… truncated ${text.length - max} characters: the whole result is in structuredContent]`;

/** Whether `value` matches `schema`: the first problem found, or undefined when it does. */
async function mismatch(
  checker: SchemaChecker,
  schema: JSONSchema,
  value: unknown,
): Promise<string | undefined> {
  try {
    await checker.check({ field: 'result', schema, value, schemaName: 'the output schema' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The MCP result of a direct call's process once it ended. A success answers the tool's result:
 * as `structuredContent` (and its JSON as text) when the tool has an output schema and the result
 * matches it, as text otherwise. A result outside the tool's output schema would be refused by
 * clients that check it (the official SDKs do), so it comes as an `isError` result
 * (`upstream_failed`) with the result as text. A failure answers the call's own stable reason
 * (`tool_blocked`, `approval_denied`, `invalid_parameters`, …) from its audit record.
 *
 * @example
 * ```ts
 * const result = await finishedResult(view, record, tool.outputSchema, { checker, maxTextChars: 20_000 });
 * ```
 */
export async function finishedResult(
  view: ProcessView,
  processReason: ErrorReason | null,
  outputSchema: JSONSchema | undefined,
  options: DirectResultOptions,
): Promise<CallToolResult> {
  const processId = view.processId;
  const call = view.toolCalls[0];
  if (view.exitState !== 'success') {
    const reason =
      (call?.errorReason as ErrorReason | null | undefined) ?? processReason ?? 'upstream_failed';
    return errorResult(reason, view.error ?? `the call ended ${view.exitState}`, processId);
  }
  const value = view.output.result ?? null;
  const text = JSON.stringify(value);
  const meta = { [META_PROCESS]: processId };
  if (!outputSchema) return { content: [{ type: 'text', text }], _meta: meta };
  const problem = await mismatch(options.checker, outputSchema, value);
  if (problem !== undefined)
    return errorResult(
      'upstream_failed',
      `the tool answered, but outside its output schema (${problem})`,
      processId,
      `\n${text}`,
    );
  return {
    content: [{ type: 'text', text: cut(text, options.maxTextChars) }],
    structuredContent: value as CallToolResult['structuredContent'],
    _meta: meta,
  };
}
