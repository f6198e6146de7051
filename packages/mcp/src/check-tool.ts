import type { TypeDiagnostic } from '@cyrnel/sdk/api';
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { McpBackend } from './mcp-backend';

const DESCRIPTION =
  'Type-check TypeScript for execute_typescript without running it: against the declarations of the tools it calls and the sandbox\'s globals (strict). Answers its errors, each with line, column (1-based, in your code), TypeScript\'s message and error code — a tool that does not exist, a parameter of the wrong type, a syntax error — or that it type-checks. Nothing runs and no tool is called. execute_typescript with typecheck: "reject" checks and runs in one call.';

/** The `outputSchema` of `check_typescript`: `TypeCheckResponse` of `@cyrnel/sdk/api`. */
const CHECK_OUTPUT = z.object({
  diagnostics: z.array(
    z.object({
      line: z.number().int(),
      column: z.number().int(),
      message: z.string(),
      code: z.number().int(),
    }),
  ),
});

/** Diagnostics as the model reads them: one line each, `line:column TSxxxx message`. */
function diagnosticsText(diagnostics: readonly TypeDiagnostic[]): string {
  if (diagnostics.length === 0) return 'The code type-checks: no errors.';
  const lines = diagnostics.map(
    (d) => `${d.line}:${d.column} TS${d.code} ${d.message.replace(/\n\s*/g, ' ')}`,
  );
  const count = diagnostics.length === 1 ? '1 error' : `${diagnostics.length} errors`;
  return `The code has ${count} (line:column, 1-based):\n${lines.join('\n')}`;
}

/**
 * The answer to code with type errors: its diagnostics as text and structure, `isError` when they
 * stopped a run (`execute_typescript` with `typecheck: "reject"`).
 */
export function diagnosticsResult(diagnostics: readonly TypeDiagnostic[], isError: boolean): CallToolResult {
  const text = diagnosticsText(diagnostics);
  return {
    content: [
      { type: 'text', text: isError ? `${text}\nThe code was not run: fix these and call again.` : text },
    ],
    structuredContent: { diagnostics: [...diagnostics] },
    ...(isError ? { isError: true } : {}),
  };
}

/**
 * The diagnostics of a create the host refused for type errors (`type_error`, a `CyrnelError` of
 * the host or a `CyrnelHttpError` of the client, both carrying them in `details`); undefined for
 * any other error.
 */
export function typeErrorsOf(error: unknown): TypeDiagnostic[] | undefined {
  const { reason, details } = (error ?? {}) as { reason?: unknown; details?: unknown };
  return reason === 'type_error' && Array.isArray(details) ? (details as TypeDiagnostic[]) : undefined;
}

/**
 * Register `check_typescript`: the type errors of code, nothing run (`POST /processes` with
 * `check: true`), with `codeSchema` the input of `execute_typescript`'s `code`.
 *
 * @example
 * ```ts
 * registerCheckTool(server, backend, inputs.check);
 * // tools/call check_typescript { code } → { diagnostics: [{ line, column, message, code }] }
 * ```
 */
export function registerCheckTool(
  server: McpServer,
  backend: McpBackend,
  inputSchema: z.ZodType<{ code: string }>,
): void {
  server.registerTool(
    'check_typescript',
    {
      title: 'Check TypeScript',
      description: DESCRIPTION,
      inputSchema,
      outputSchema: CHECK_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ code }) => diagnosticsResult((await backend.processes.check(code)).diagnostics, false),
  );
}
