import { TOOL_POLICIES } from '@cyrnel/sdk';
import { TYPE_CHECK_MODES } from '@cyrnel/sdk/api';
import * as z from 'zod';

/**
 * The schema with its JSON Schema conversion memoised. The SDK converts a tool's schemas on every
 * `tools/call` of a fresh server (one per request here): 0.2 ms a request for the same answer.
 * Validation still runs on the zod schema itself.
 */
function cachedJsonSchema<T extends z.ZodType>(schema: T): T {
  const standard = schema['~standard'] as StandardWithJsonSchema;
  const cache = new Map<string, unknown>();
  const memo =
    (io: 'input' | 'output') =>
    (options: { target?: string }): unknown => {
      const key = `${io}:${options?.target}`;
      if (!cache.has(key)) cache.set(key, standard.jsonSchema[io](options));
      return cache.get(key);
    };
  const cached = { ...standard, jsonSchema: { input: memo('input'), output: memo('output') } };
  return new Proxy(schema, {
    get: (target, property) => (property === '~standard' ? cached : Reflect.get(target, property, target)),
  });
}

/** The part of zod's `~standard` the SDK reads (Standard Schema with Standard JSON Schema). */
interface StandardWithJsonSchema {
  readonly jsonSchema: Record<'input' | 'output', (options: { target?: string }) => unknown>;
}

/** How the policies decided a call (`CallDecision` of `@cyrnel/sdk/api`); null for a call an older server recorded. */
const DECISION_SCHEMA = z
  .object({
    policy: z.enum(TOOL_POLICIES),
    rule: z.string(),
    detail: z.string().optional(),
    outcome: z.enum(['allowed', 'approved', 'denied', 'expired', 'blocked']),
    approvalId: z.string().optional(),
    decidedBy: z.string().nullable().optional(),
    note: z.string().optional(),
  })
  .nullable();

/** The `outputSchema` of the process tools: a `ProcessView`. */
export const PROCESS_VIEW_SCHEMA = cachedJsonSchema(
  z.object({
    processId: z.number().int(),
    state: z.enum(['idle', 'queued', 'running', 'waiting', 'terminating']),
    exitState: z.enum(['success', 'failed', 'timeout', 'canceled']).nullable(),
    error: z.string().nullable(),
    output: z.record(z.string(), z.unknown()),
    stdout: z.string(),
    stderr: z.string(),
    approvalId: z.string().nullable(),
    approvalUrl: z.string().nullable(),
    toolCalls: z.array(
      z.object({
        serviceId: z.string(),
        toolId: z.string(),
        // null: no answer (yet, or ever: a call a host crash interrupted).
        ok: z.boolean().nullable(),
        durationMs: z.number(),
        errorReason: z.string().nullable(),
        decision: DECISION_SCHEMA,
      }),
    ),
  }),
);

/** The `code` of `execute_typescript` and `check_typescript`. */
const code = (maxCodeChars: number) =>
  z
    .string()
    .min(1)
    .max(maxCodeChars)
    .describe(
      'TypeScript; calls tools with await cyrnel.services.<service>.tools.<tool>.invoke({...}) and returns data with cyrnel.output({...})',
    );

/** The input schemas, built once per (code limit, default wait): zod schemas are reused across requests. */
const INPUTS = new Map<string, ToolInputs>();

/** The input schemas of the tools. */
export type ToolInputs = ReturnType<typeof buildInputs>;

function buildInputs(maxCodeChars: number, defaultWaitMs: number) {
  return {
    search: cachedJsonSchema(
      z.object({
        query: z.string().min(1).max(500).describe('Words describing the task, or a tool id'),
        serviceId: z.string().min(1).max(200).optional().describe('Only tools of this service'),
        limit: z.number().int().min(1).max(50).optional().describe('At most this many tools (default 10)'),
      }),
    ),
    types: cachedJsonSchema(
      z.object({
        tools: z
          .array(z.string().min(3).max(400))
          .max(50)
          .optional()
          .describe('Tool ids as "serviceId.toolId"'),
        types: z
          .array(z.string().min(3).max(1000))
          .max(50)
          .optional()
          .describe('Names of stubs to declare, as written in CyrnelStub<"name"> (e.g. "stripe.customer")'),
      }),
    ),
    execute: cachedJsonSchema(
      z.object({
        code: code(maxCodeChars),
        timeoutMs: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe("Deadline of the run in ms (default: the server's)"),
        waitMs: z
          .number()
          .int()
          .min(0)
          .max(600_000)
          .optional()
          .describe(
            `How long this call waits for the run, in ms (default ${defaultWaitMs}); then use get_process`,
          ),
        typecheck: z
          .enum(TYPE_CHECK_MODES)
          .optional()
          .describe(
            '"reject": type-check first and answer the errors (line, column, message) instead of running code that has any; "off" (default): run unchecked',
          ),
      }),
    ),
    check: cachedJsonSchema(z.object({ code: code(maxCodeChars) })),
    get: cachedJsonSchema(
      z.object({
        processId: z.number().int().min(1).describe('The processId execute_typescript answered'),
        waitMs: z
          .number()
          .int()
          .min(0)
          .max(600_000)
          .optional()
          .describe(`How long to wait, in ms (default ${defaultWaitMs})`),
      }),
    ),
    wait: cachedJsonSchema(
      z.object({
        processId: z.number().int().min(1).describe('The processId execute_typescript answered'),
        timeoutMs: z
          .number()
          .int()
          .min(0)
          .max(600_000)
          .optional()
          .describe(
            `How long to wait for the run to end, in ms (default ${defaultWaitMs}); answers earlier when it waits for another approval`,
          ),
      }),
    ),
  };
}

/** The input schemas for a code limit and a default wait, built on first use. */
export function toolInputs(maxCodeChars: number, defaultWaitMs: number): ToolInputs {
  const key = `${maxCodeChars}:${defaultWaitMs}`;
  let inputs = INPUTS.get(key);
  if (!inputs) {
    inputs = buildInputs(maxCodeChars, defaultWaitMs);
    INPUTS.set(key, inputs);
  }
  return inputs;
}
