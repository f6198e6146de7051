import type {
  AdapterModule,
  BuiltinModule,
  ServiceDefinition,
  ServiceState,
  ToolAnnotations,
} from '@cyrnel/sdk';

/** Everything the test adapter was asked to do, in order (`hydrate:github`, `invoke:github.list`, ...). */
export interface AdapterProbe {
  readonly calls: string[];
  /** Snapshots received by hydrateService, by service id. */
  readonly states: Map<string, ServiceState>;
  /** Make the next hydrateService calls throw this message. */
  failHydrate: string | undefined;
  /** Make invoke throw this message. */
  failInvoke: string | undefined;
  /** Make setup throw this message. */
  failSetup: string | undefined;
  /** When set, setup waits for it (a module whose setup hangs). */
  setupHold: Promise<void> | undefined;
  /** Hold invoke until resolved (for timeouts). */
  invokeDelayMs: number;
  /** When set, the next hydrateService (after recording its call) waits for it before keeping the state. */
  hydrateHold: Promise<void> | undefined;
}

/** Create a probe with nothing recorded. */
export function createProbe(): AdapterProbe {
  return {
    calls: [],
    states: new Map(),
    failHydrate: undefined,
    failInvoke: undefined,
    failSetup: undefined,
    setupHold: undefined,
    invokeDelayMs: 0,
    hydrateHold: undefined,
  };
}

/** The definition text the test adapter understands: JSON with tools given by id. */
export interface TestDefinition {
  name?: string;
  tools: (
    | string
    | {
        id: string;
        name?: string;
        description?: string;
        inputSchema?: Record<string, unknown>;
        /** Default `{ type: 'object' }`; `{}` for a tool that declares nothing of its results. */
        outputSchema?: Record<string, unknown>;
        annotations?: ToolAnnotations;
      }
  )[];
  configSchema?: Record<string, unknown>;
  secretsSchema?: Record<string, unknown>;
}

/** Serialize a test definition. */
export function definition(value: TestDefinition): string {
  return JSON.stringify(value);
}

/** A built-in adapter module recording its calls into `probe`. */
export function createTestAdapter(id: string, probe: AdapterProbe): BuiltinModule<AdapterModule> {
  return {
    manifest: {
      id,
      name: `Test adapter ${id}`,
      description: 'records calls',
      type: 'adapter',
      version: '1.0.0',
    },
    configSchema: { type: 'object', properties: { region: { type: 'string', default: 'eu' } } },
    secretsSchema: { type: 'object' },
    instantiate(): AdapterModule {
      const states = new Map<string, ServiceState>();
      return {
        async setup() {
          probe.calls.push('setup');
          if (probe.setupHold) await probe.setupHold;
          if (probe.failSetup) throw new Error(probe.failSetup);
        },
        async teardown() {
          probe.calls.push('teardown');
          states.clear();
        },
        async generateDefinition(input): Promise<ServiceDefinition> {
          probe.calls.push('generateDefinition');
          const parsed = JSON.parse(input) as TestDefinition;
          return {
            name: parsed.name ?? 'Test service',
            description: 'a service for tests',
            configSchema: parsed.configSchema ?? { type: 'object' },
            secretsSchema: parsed.secretsSchema ?? { type: 'object' },
            adapterDomain: { kind: 'test' },
            tools: parsed.tools.map((tool) => {
              const spec = typeof tool === 'string' ? { id: tool } : tool;
              return {
                id: spec.id,
                name: spec.name ?? spec.id,
                description: spec.description ?? `The ${spec.id} tool`,
                inputSchema: spec.inputSchema ?? { type: 'object' },
                outputSchema: ('outputSchema' in spec && spec.outputSchema) || { type: 'object' },
                adapterDomain: { route: `/${spec.id}` },
                ...('annotations' in spec && spec.annotations ? { annotations: spec.annotations } : {}),
              };
            }),
          };
        },
        async hydrateService(state) {
          probe.calls.push(`hydrate:${state.id}`);
          const hold = probe.hydrateHold;
          probe.hydrateHold = undefined;
          if (hold) await hold;
          if (probe.failHydrate) throw new Error(probe.failHydrate);
          states.set(state.id, state);
          probe.states.set(state.id, state);
        },
        async dehydrateService(serviceId) {
          probe.calls.push(`dehydrate:${serviceId}`);
          states.delete(serviceId);
          probe.states.delete(serviceId);
        },
        async invoke(input) {
          probe.calls.push(`invoke:${input.serviceId}.${input.toolId}`);
          if (probe.invokeDelayMs > 0)
            await new Promise((resolve) => setTimeout(resolve, probe.invokeDelayMs));
          if (probe.failInvoke) throw new Error(probe.failInvoke);
          const state = states.get(input.serviceId);
          if (!state) throw new Error(`unknown service ${input.serviceId}`);
          return { echo: input.parameters, route: state.tools[input.toolId]?.adapterDomain.route };
        },
      };
    },
  };
}
