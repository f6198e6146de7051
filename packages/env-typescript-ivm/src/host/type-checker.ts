import {
  cyrnelError,
  type FoundToolCalls,
  type JSONSchema,
  sharedSchemaClosure,
  type ToolDocsInput,
  type TypeCheckContext,
  type TypeDiagnostic,
} from '@cyrnel/sdk';
import type { CheckAnswer, CheckRequest } from '../type-check/check-worker';
import { createRenderLane, type LaneError } from './render-lane';

/** How long the check worker may take to load TypeScript and parse its library before it failed. */
const WORKER_READY_TIMEOUT_MS = 60_000;

/** Options of {@link createTypeChecker}. */
export interface TypeCheckerOptions {
  /** Path of the built `check-worker.js` (see `resolveDistFile`). */
  readonly workerPath: string;
  /** Deadline of one check; past it the check fails and its worker is replaced. */
  readonly timeoutMs: number;
  /** Heap limit of the worker, in MB; past it the check fails and its worker is replaced. */
  readonly memoryLimitMb: number;
  /** Longest code checked, in UTF-8 bytes; longer is a 413. */
  readonly maxCodeBytes: number;
  /** The worker exits after this long without work (started again, cold, on demand). */
  readonly idleTimeoutMs: number;
  /** The tool calls in the code's text (the analysis lane of the renderer). */
  readonly findToolCalls: (code: string) => Promise<FoundToolCalls>;
}

/** Type-checks programs in a worker thread holding a warm TypeScript language service. */
export interface TypeChecker {
  /** `EnvironmentModule.checkTypes`: the code's errors against the tools it names and the sandbox's globals. */
  check(code: string, context: TypeCheckContext): Promise<TypeDiagnostic[]>;
  /** Terminate the worker; pending and later checks reject. */
  close(): void;
}

/** The tool calls the text names; none when it does not parse (the check then reports why). */
async function namedCalls(findToolCalls: TypeCheckerOptions['findToolCalls'], code: string) {
  try {
    return (await findToolCalls(code)).calls;
  } catch {
    // Code that does not parse, or nests deeper than the analysis goes: the check says why.
    return [];
  }
}

/** The resolved tools for the worker: each service's shared schemas once, only what its named tools reach. */
function checkInput(tools: readonly ToolDocsInput[]): Pick<CheckRequest, 'tools' | 'schemas'> {
  const schemas: Record<string, Record<string, JSONSchema>> = {};
  const plain = tools.map((tool) => {
    const { schemas: given, ...rest } = tool;
    if (given) {
      const reached = schemas[tool.serviceId] ?? {};
      schemas[tool.serviceId] = reached;
      for (const schema of [tool.inputSchema, tool.outputSchema])
        Object.assign(reached, sharedSchemaClosure(schema, given));
    }
    return rest;
  });
  return { tools: plain, schemas };
}

/**
 * Create the checker; its worker starts on the first check. A check finds the tool calls in the
 * code (the renderer's analysis lane), asks the host for those tools (`context.resolve`), and
 * checks the code in the worker against their declarations and the sandbox's globals. Code
 * longer than `maxCodeBytes` is a 413; a check past its deadline or its worker's memory (a
 * hostile program) is a 400 saying so, and the worker is replaced.
 *
 * @example
 * ```ts
 * const checker = createTypeChecker({ workerPath: resolveDistFile('check-worker.js'), timeoutMs: 5_000,
 *   memoryLimitMb: 512, maxCodeBytes: 102_400, idleTimeoutMs: 300_000, findToolCalls });
 * await checker.check('const n: number = "one";', { resolve: async () => ({ tools: [], services: [] }) });
 * ```
 */
export function createTypeChecker(options: TypeCheckerOptions): TypeChecker {
  const lane = createRenderLane<CheckRequest>({
    workerPath: options.workerPath,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    resourceLimits: { maxOldGenerationSizeMb: options.memoryLimitMb },
    // Loading TypeScript and its library takes about a second, more on a busy machine: never a check's time.
    readyTimeoutMs: WORKER_READY_TIMEOUT_MS,
  });
  return {
    async check(code, context) {
      if (typeof code !== 'string') throw cyrnelError('invalid_request', 'code must be a string');
      // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
      if (code.length * 3 > options.maxCodeBytes && Buffer.byteLength(code) > options.maxCodeBytes)
        throw cyrnelError(
          'payload_too_large',
          `the code is too large to type-check: at most ${options.maxCodeBytes} bytes`,
        );
      const calls = await namedCalls(options.findToolCalls, code);
      const names = calls.map(({ serviceId, toolId }) => ({ serviceId, toolId }));
      const resolved = await context.resolve(names);
      const input = checkInput(resolved.tools);
      let text: string;
      try {
        text = await lane.run('the type check of the code', (id) => [
          { id, code, ...input, services: resolved.services },
        ]);
      } catch (error) {
        throw uncheckedError(error as LaneError, options);
      }
      const answer = JSON.parse(text) as CheckAnswer;
      if ('unchecked' in answer)
        throw cyrnelError('invalid_request', `the code could not be type-checked: ${answer.unchecked}`);
      return answer.diagnostics;
    },
    close() {
      lane.close();
    },
  };
}

/** A check that did not finish, as the host answers it: the code's fault (400) unless the lane was closed. */
function uncheckedError(error: LaneError, options: TypeCheckerOptions) {
  switch (error.stop) {
    case 'deadline':
      return cyrnelError(
        'invalid_request',
        `the code could not be type-checked: the check took longer than ${options.timeoutMs} ms and was stopped`,
      );
    case 'failed':
      return cyrnelError(
        'invalid_request',
        'the code could not be type-checked: the checker ran out of memory or stack and was stopped',
      );
    case 'closed':
      return cyrnelError('module_torn_down', error.message);
    default:
      return error;
  }
}
