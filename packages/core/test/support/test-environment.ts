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
