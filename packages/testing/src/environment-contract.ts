import {
  cyrnelError,
  type EnvironmentBindings,
  type EnvironmentModule,
  type ExecutionExitState,
  type ModuleSetupContext,
} from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What the host saw of one execution. */
export interface RecordedExecution {
  states: string[];
  stdout: string;
  stderr: string;
  output: Record<string, unknown>;
  errors: string[];
  calls: { serviceId: string; toolId: string; parameters: Record<string, unknown> }[];
}

/**
 * Host-side bindings that record every callback per execution id and answer one tool,
 * `math.add` (`{a, b}` → `a + b`); any other tool rejects with 404 `tool_not_found`.
 *
 * @example
 * ```ts
 * const { bindings, of } = createRecordingBindings();
 * await environment.setup({ config: {}, secrets: {}, logger, bindings });
 * await environment.execute({ eid: 1, code, options: { timeoutMs: 1000 }, envConfig: {} });
 * of(1).output; // what the program passed to cyrnel.output()
 * ```
 */
export function createRecordingBindings(): {
  bindings: EnvironmentBindings;
  of(eid: number): RecordedExecution;
} {
  const records = new Map<number, RecordedExecution>();
  const of = (eid: number): RecordedExecution => {
    let record = records.get(eid);
    if (!record) {
      record = { states: [], stdout: '', stderr: '', output: {}, errors: [], calls: [] };
      records.set(eid, record);
    }
    return record;
  };
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  const bindings: EnvironmentBindings = {
    async invokeTool(eid, { serviceId, toolId, parameters }) {
      of(eid).calls.push({ serviceId, toolId, parameters });
      if (serviceId !== 'math' || toolId !== 'add')
        throw cyrnelError('tool_not_found', `tool ${serviceId}.${toolId} not found`);
      return Number(parameters.a) + Number(parameters.b);
    },
    discoverServices: async () => [{ id: 'math', name: 'Math', description: 'Arithmetic', toolCount: 1 }],
    discoverTools: async () => [
      { serviceId: 'math', toolId: 'add', name: 'Add', description: 'Adds two numbers' },
    ],
    describeTool: async (_eid, serviceId, toolId) => ({
      serviceId,
      toolId,
      name: 'Add',
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      outputSchema: { type: 'number' },
    }),
    setState: (eid, state) => void of(eid).states.push(state),
    emitStdout: (eid, chunk) => {
      of(eid).stdout += text(chunk);
    },
    emitStderr: (eid, chunk) => {
      of(eid).stderr += text(chunk);
    },
    emitOutput: (eid, patch) => void Object.assign(of(eid).output, patch),
    setError: (eid, message) => void of(eid).errors.push(message),
  };
  return { bindings, of };
}

/** Programs in the environment's language, each doing one thing the contract checks. */
export interface EnvironmentPrograms {
  /** Writes `hello` to stdout and passes `{ answer: 42 }` to the output, then completes. */
  readonly outputs: string;
  /** Throws an error whose message is `boom`. */
  readonly throws: string;
  /** Calls tool `math.add` with `{ a: 2, b: 3 }` and outputs `{ sum: <result> }`. */
  readonly callsTool: string;
  /** Waits (without busy-looping) for a minute: it is killed. */
  readonly waits: string;
  /** Never ends by itself (a busy loop): the environment ends it at `timeoutMs`. Omit when the host alone enforces deadlines. */
  readonly loops?: string;
}

/** Options of {@link runEnvironmentContract}. */
export interface EnvironmentContractOptions {
  /** Shown in the suite's name, e.g. `typescript-ivm`. */
  readonly name: string;
  /** A fresh environment instance (what the module's `instantiate()` answers). */
  create(): EnvironmentModule | Promise<EnvironmentModule>;
  /** The module's config and secrets; `{}` by default. */
  readonly setup?: Partial<Omit<ModuleSetupContext, 'logger'>>;
  readonly programs: EnvironmentPrograms;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** What each required program does, for the error naming a missing one. */
const REQUIRED_PROGRAMS = {
  outputs: 'writes hello and outputs { answer: 42 }',
  throws: 'throws boom',
  callsTool: 'calls math.add',
  waits: 'waits a minute',
} as const;

/** Throw an error naming each required program `programs` lacks (not a string). */
export function checkPrograms(name: string, programs: unknown): void {
  const given = (typeof programs === 'object' && programs !== null ? programs : {}) as Record<
    string,
    unknown
  >;
  const missing = Object.entries(REQUIRED_PROGRAMS)
    .filter(([key]) => typeof given[key] !== 'string')
    .map(([key, does]) => `\`${key}\` (${does})`);
  if (given.loops !== undefined && typeof given.loops !== 'string')
    missing.push('`loops` (a string, or left out)');
  if (missing.length > 0) {
    throw new Error(`runEnvironmentContract(${name}): programs lacks ${missing.join(', ')}`);
  }
}

/**
 * The `EnvironmentModule` contract as a Vitest suite: `execute` reports through
 * the bindings of its execution id (states in order, stdout, output, errors), resolves with the
 * exit state, routes tool calls through `invokeTool`, keeps concurrent executions apart, ends a
 * killed execution as `canceled` (and a runaway one as `timeout` when it enforces deadlines), and
 * renders docs. Call it at the top level of a test file.
 *
 * @example
 * ```ts
 * runEnvironmentContract({
 *   name: 'typescript-ivm',
 *   create: () => typescriptIvm.instantiate(),
 *   programs: { outputs: 'console.log("hello"); cyrnel.output({ answer: 42 });', … },
 * });
 * ```
 */
export function runEnvironmentContract(options: EnvironmentContractOptions): void {
  checkPrograms(options.name, options.programs);
  describe(`EnvironmentModule contract: ${options.name}`, () => {
    const { bindings, of } = createRecordingBindings();
    let environment: EnvironmentModule;
    let nextEid = 1000;
    const run = (code: string, timeoutMs = 10_000) => {
      const eid = nextEid++;
      const exit = environment.execute({ eid, code, options: { timeoutMs }, envConfig: {} });
      return { eid, exit };
    };

    beforeAll(async () => {
      environment = await options.create();
      await environment.setup({ config: {}, secrets: {}, ...options.setup, logger: silent, bindings });
    });
    afterAll(async () => {
      await environment?.teardown();
    });

    it('runs a program: `running` reported (after any `queued`), stdout and output sent, `success`', async () => {
      const { eid, exit } = run(options.programs.outputs);
      expect(await exit).toBe('success');
      const record = of(eid);
      expect(record.stdout).toContain('hello');
      expect(record.output).toEqual({ answer: 42 });
      expect(record.errors).toEqual([]);
      expect(record.states).toContain('running');
      const queued = record.states.indexOf('queued');
      if (queued >= 0) expect(queued).toBeLessThan(record.states.indexOf('running'));
    });

    it('ends a program that throws as `failed`, reporting the message', async () => {
      const { eid, exit } = run(options.programs.throws);
      expect(await exit).toBe('failed');
      expect([...of(eid).errors, of(eid).stderr].join('\n')).toContain('boom');
    });

    it('routes tool calls through invokeTool with its execution id and answers the result', async () => {
      const { eid, exit } = run(options.programs.callsTool);
      expect(await exit).toBe('success');
      expect(of(eid).calls).toEqual([{ serviceId: 'math', toolId: 'add', parameters: { a: 2, b: 3 } }]);
      expect(of(eid).output).toEqual({ sum: 5 });
    });

    it('keeps concurrent executions apart', async () => {
      const first = run(options.programs.callsTool);
      const second = run(options.programs.outputs);
      expect(await Promise.all([first.exit, second.exit])).toEqual(['success', 'success']);
      expect(of(first.eid).output).toEqual({ sum: 5 });
      expect(of(second.eid).output).toEqual({ answer: 42 });
      expect(of(second.eid).calls).toEqual([]);
    });

    it('ends a killed execution as `canceled`', async () => {
      const { eid, exit } = run(options.programs.waits, 60_000);
      for (let i = 0; i < 400 && !of(eid).states.includes('running'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(of(eid).states).toContain('running');
      await environment.kill(eid);
      const outcome = await Promise.race([
        exit,
        new Promise<ExecutionExitState | 'still running'>((resolve) =>
          setTimeout(() => resolve('still running'), 5000),
        ),
      ]);
      expect(outcome).toBe('canceled');
      // Killing an execution that ended is harmless.
      await environment.kill(eid);
    });

    if (options.programs.loops !== undefined) {
      const loops = options.programs.loops;
      it('ends a runaway program at its timeoutMs as `timeout`', async () => {
        const { exit } = run(loops, 300);
        expect(await exit).toBe('timeout');
      });
    }

    it('renders runtime docs and a tool page', async () => {
      const docs = await environment.generateDocs();
      expect(typeof docs).toBe('string');
      expect(docs.length).toBeGreaterThan(0);
      const page = await environment.generateToolDocs({
        serviceId: 'math',
        toolId: 'add',
        description: 'Adds two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
        outputSchema: { type: 'number' },
      });
      expect(page).toContain('add');
    });
  });
}
