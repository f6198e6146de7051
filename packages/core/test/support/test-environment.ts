import type { BuiltinModule, EnvironmentBindings, EnvironmentModule } from '@cyrnel/sdk';

/** What the test environment did, and handles to finish executions. */
export interface EnvironmentProbe {
  readonly calls: string[];
  /** Resolve the held execution of `eid` (executions wait until released when `hold` is on). */
  readonly release: Map<number, () => void>;
  hold: boolean;
}

/** Create an empty probe. */
export function createEnvironmentProbe(): EnvironmentProbe {
  return { calls: [], release: new Map(), hold: false };
}

/**
 * A built-in environment that "runs" code by outputting which environment ran it. When
 * `probe.hold` is set, an execution waits until `probe.release.get(eid)()` is called.
 */
export function createTestEnvironment(id: string, probe: EnvironmentProbe): BuiltinModule<EnvironmentModule> {
  return {
    manifest: {
      id,
      name: `Test environment ${id}`,
      description: 'for tests',
      type: 'environment',
      version: '1.0.0',
    },
    configSchema: { type: 'object' },
    secretsSchema: { type: 'object' },
    instantiate(): EnvironmentModule {
      let bindings: EnvironmentBindings | undefined;
      return {
        async setup(context) {
          probe.calls.push('setup');
          bindings = context.bindings;
        },
        async teardown() {
          probe.calls.push('teardown');
        },
        async execute({ eid, code }) {
          probe.calls.push(`execute:${eid}`);
          bindings?.setState(eid, 'running');
          if (probe.hold) await new Promise<void>((resolve) => probe.release.set(eid, resolve));
          if (code.startsWith('calls:') && bindings) {
            // `calls:[{"method":"invokeTool","args":[...]}, ...]` calls bindings one after the
            // other and outputs each answer or error under `results`.
            const steps = JSON.parse(code.slice('calls:'.length)) as { method: string; args: unknown[] }[];
            const results: unknown[] = [];
            for (const { method, args } of steps) {
              const table = bindings as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
              const call: ((...a: unknown[]) => Promise<unknown>) | undefined = table[method];
              try {
                results.push({ result: await call?.call(bindings, eid, ...args) });
              } catch (error) {
                const { status, reason, message } = error as Record<string, unknown>;
                results.push({ error: { status, reason, message } });
              }
            }
            bindings.emitOutput(eid, { results });
          }
          if (code.startsWith('call:') && bindings) {
            // `call:{"method":"invokeTool","args":[...]}` calls one binding and outputs its answer.
            const { method, args } = JSON.parse(code.slice('call:'.length)) as {
              method: string;
              args: unknown[];
            };
            const binding = (bindings as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[
              method
            ];
            try {
              bindings.emitOutput(eid, { result: await binding?.call(bindings, eid, ...args) });
            } catch (error) {
              const { status, code: errorCode, details, message } = error as Record<string, unknown>;
              bindings.emitOutput(eid, { error: { status, code: errorCode, details, message } });
            }
          }
          bindings?.emitOutput(eid, { ranOn: id });
          return 'success';
        },
        async kill(eid) {
          probe.release.get(eid)?.();
        },
        async generateDocs() {
          return `# ${id}`;
        },
        // The tool calls of a `calls:` or `call:` program, each on its own "line" (its index + 1).
        async findToolCalls(code) {
          const text = code.startsWith('calls:')
            ? code.slice('calls:'.length)
            : `[${code.slice('call:'.length)}]`;
          const steps = JSON.parse(text) as {
            method: string;
            args: [{ serviceId: string; toolId: string }];
          }[];
          return {
            calls: steps
              .map((step, index) => ({ ...step.args[0], line: index + 1, method: step.method }))
              .filter((step) => step.method === 'invokeTool')
              .map(({ serviceId, toolId, line }) => ({ serviceId, toolId, line })),
            unknown: [],
          };
        },
        async generateToolDocs(input) {
          return `## ${input.serviceId}.${input.toolId}`;
        },
        async generateTypes(tools) {
          return `declare const cyrnel: { tools: ${JSON.stringify(tools.map((t) => `${t.serviceId}.${t.toolId}`))} };`;
        },
      };
    },
  };
}
