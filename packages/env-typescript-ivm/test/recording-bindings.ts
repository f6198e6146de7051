import {
  cyrnelError,
  type EnvironmentBindings,
  type EnvironmentModule,
  type ExecutionExitState,
  type ModuleLogger,
} from '@cyrnel/sdk';
import { createTypescriptEnvironment } from '../src';

/** A fake tool: answers with a value, or throws to reject the call; `eid` is the calling execution. */
export type FakeTool = (parameters: Record<string, unknown>, eid: number) => unknown;

/** Everything the environment reported, per execution id. */
export interface Recorded {
  states: string[];
  stdout: string;
  stderr: string;
  output: Record<string, unknown>;
  /** How many output patches reached the host (the child merges a program's calls). */
  outputPatches: number;
  errors: string[];
  /** The reason given with each error (undefined: none). */
  reasons: (string | undefined)[];
  calls: { serviceId: string; toolId: string; parameters: Record<string, unknown> }[];
  /** What the environment reported with `reportUsage`, in order. */
  usage: { cpuMs: number }[];
}

/** Host-side bindings for tests: records every callback and answers tools from a map. */
export function createRecordingBindings(tools: Record<string, FakeTool> = {}) {
  const records = new Map<number, Recorded>();
  const log: string[] = [];
  const of = (eid: number): Recorded => {
    let r = records.get(eid);
    if (!r) {
      r = {
        states: [],
        stdout: '',
        stderr: '',
        output: {},
        outputPatches: 0,
        errors: [],
        reasons: [],
        calls: [],
        usage: [],
      };
      records.set(eid, r);
    }
    return r;
  };
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  const bindings: EnvironmentBindings = {
    async invokeTool(eid, input) {
      of(eid).calls.push(input);
      const tool = tools[`${input.serviceId}.${input.toolId}`];
      if (!tool) throw cyrnelError('tool_not_found', `Unknown tool ${input.serviceId}.${input.toolId}`);
      return tool(input.parameters, eid);
    },
    async discoverServices() {
      return [{ id: 'math', name: 'Math', description: 'Arithmetic', toolCount: 1 }];
    },
    async discoverTools(_eid, query) {
      return [{ serviceId: query.serviceId ?? 'math', toolId: 'add', name: 'Add', description: 'Adds' }];
    },
    async describeTool(_eid, serviceId, toolId) {
      return {
        serviceId,
        toolId,
        name: toolId,
        description: 'Adds two numbers',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
        outputSchema: { type: 'number' },
      };
    },
    setState: (eid, state) => {
      of(eid).states.push(state);
      log.push(`${eid}:${state}`);
    },
    emitStdout: (eid, chunk) => {
      of(eid).stdout += text(chunk);
    },
    emitStderr: (eid, chunk) => {
      of(eid).stderr += text(chunk);
    },
    emitOutput: (eid, patch) => {
      const record = of(eid);
      record.outputPatches++;
      // As the host merges: a `__proto__` key stays an own property.
      for (const [key, value] of Object.entries(patch)) {
        Object.defineProperty(record.output, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    },
    reportUsage: (eid, usage) => {
      of(eid).usage.push(usage);
    },
    setError: (eid, message, reason) => {
      of(eid).errors.push(message);
      of(eid).reasons.push(reason);
    },
  };
  return { bindings, of, log };
}

/** A logger that keeps quiet. */
export const silentLogger: ModuleLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** One logged line. */
export interface LogEntry {
  level: string;
  message: string;
  data: Record<string, unknown>;
}

/** A logger that keeps every line, plus the sandbox child pids it announced. */
export function createRecordingLogger() {
  const entries: LogEntry[] = [];
  const at =
    (level: string) =>
    (message: string, data?: Record<string, unknown>): void =>
      void entries.push({ level, message, data: data ?? {} });
  const logger: ModuleLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const pids = (message: RegExp) =>
    entries.filter((e) => message.test(e.message)).map((e) => e.data.pid as number);
  return {
    logger,
    entries,
    /** Children forked so far, in order. */
    started: () => pids(/^sandbox process started/),
    /** Children that died while the environment was set up, with how. */
    exited: () => entries.filter((e) => /^sandbox process exited/.test(e.message)).map((e) => e.data),
    /** Children stopped after idling (`idleTimeoutMs`). */
    retired: () => pids(/^sandbox process stopped after idling/),
    /** Idle children stopped to make room for another tenant's execution. */
    evicted: () => pids(/^sandbox process stopped to make room/),
    /** Children forked and not (yet) seen dying or retiring. */
    live: () => {
      const dead = new Set([...pids(/^sandbox process exited/), ...pids(/^sandbox process stopped/)]);
      return pids(/^sandbox process started/).filter((pid) => !dead.has(pid));
    },
  };
}

/** A set-up environment plus a `run(code)` helper returning the exit state and the record. */
export async function startEnvironment(
  config: Record<string, unknown> = {},
  tools: Record<string, FakeTool> = {},
): Promise<{
  env: EnvironmentModule;
  of: (eid: number) => Recorded;
  log: string[];
  children: ReturnType<typeof createRecordingLogger>;
  run(
    code: string,
    timeoutMs?: number,
    tenant?: string,
  ): Promise<{ exit: ExecutionExitState; record: Recorded; eid: number }>;
}> {
  const env = createTypescriptEnvironment();
  const { bindings, of, log } = createRecordingBindings(tools);
  const children = createRecordingLogger();
  await env.setup({
    config: { poolSize: 1, memoryLimitMb: 64, ...config },
    secrets: {},
    logger: children.logger,
    bindings,
  });
  let next = 1;
  return {
    env,
    of,
    log,
    children,
    // Generous: the tests that expect a timeout set their own; the rest must not meet one on a
    // loaded machine.
    async run(code, timeoutMs = 30_000, tenant) {
      const eid = next++;
      const exit = await env.execute({
        eid,
        code,
        options: { timeoutMs },
        envConfig: {},
        ...(tenant === undefined ? {} : { tenant }),
      });
      return { exit, record: of(eid), eid };
    },
  };
}

/**
 * Poll until `check()` is true (fails the test after `ms`). The default catches a hang, not a
 * slow machine: under a full parallel suite a child's first output took over 10 s.
 */
export async function waitFor(check: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('waitFor: condition not met');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
