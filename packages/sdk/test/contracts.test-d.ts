import { describe, expectTypeOf, it } from 'vitest';
import type {
  ERROR_REASONS,
  ErrorBody,
  ErrorReason,
  ListResponse,
  ProcessEvent,
  ProcessResult,
} from '../src/api';
import type {
  AdapterModule,
  BuiltinModule,
  EnvironmentBindings,
  EnvironmentModule,
  EnvironmentSetupContext,
  ExecutionExitState,
  ExecutionInput,
  InvokeInput,
  ModuleDefinition,
  ModuleSetupContext,
  ServiceDefinition,
  ServiceState,
  ToolDocsInput,
  ToolState,
} from '../src/index';

// A minimal adapter written as a class, the way a module author would start one.
class MyAdapter implements AdapterModule {
  private state = new Map<string, ServiceState>();
  async setup(_context: ModuleSetupContext) {}
  async teardown() {
    this.state.clear();
  }
  async generateDefinition(_input: string): Promise<ServiceDefinition> {
    return {
      name: '...',
      description: '...',
      configSchema: { type: 'object', properties: {} },
      secretsSchema: { type: 'object', properties: {} },
      adapterDomain: {},
      tools: [
        {
          id: 'ping',
          name: 'ping',
          description: 'Health check',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          adapterDomain: {},
        },
      ],
    };
  }
  async hydrateService(state: ServiceState): Promise<void> {
    this.state.set(state.id, state);
  }
  async dehydrateService(id: string): Promise<void> {
    this.state.delete(id);
  }
  async invoke(input: InvokeInput): Promise<unknown> {
    const svc = this.state.get(input.serviceId);
    if (!svc) throw new Error(`unknown service ${input.serviceId}`);
    return { ok: true };
  }
}

class EchoEnvironment implements EnvironmentModule {
  private bindings: EnvironmentBindings | undefined;
  async setup(context: EnvironmentSetupContext) {
    this.bindings = context.bindings;
  }
  async teardown() {
    this.bindings = undefined;
  }
  async execute(input: ExecutionInput): Promise<ExecutionExitState> {
    this.bindings?.setState(input.eid, 'running');
    const result = await this.bindings?.invokeTool(input.eid, {
      serviceId: 's',
      toolId: 't',
      parameters: {},
    });
    this.bindings?.emitOutput(input.eid, { result });
    this.bindings?.emitStdout(input.eid, new TextEncoder().encode('héllo'));
    return 'success';
  }
  async kill(_eid: number) {}
  async generateDocs() {
    return '# echo';
  }
  async generateToolDocs(input: ToolDocsInput) {
    return `# ${input.serviceId}.${input.toolId}`;
  }
}

describe('sdk contracts', () => {
  it('a skeleton adapter class compiles against AdapterModule', () => {
    expectTypeOf<MyAdapter>().toExtend<AdapterModule>();
    const definition: ModuleDefinition<AdapterModule> = {
      configSchema: {},
      secretsSchema: {},
      instantiate: () => new MyAdapter(),
    };
    expectTypeOf(definition.instantiate).returns.toExtend<AdapterModule | Promise<AdapterModule>>();
  });

  it('a skeleton environment compiles against EnvironmentModule', () => {
    expectTypeOf<EchoEnvironment>().toExtend<EnvironmentModule>();
    const builtin: BuiltinModule<EnvironmentModule> = {
      manifest: { id: 'echo', name: 'Echo', description: '', type: 'environment', version: '0.0.1' },
      configSchema: {},
      secretsSchema: {},
      instantiate: () => new EchoEnvironment(),
    };
    expectTypeOf(builtin.manifest.type).toEqualTypeOf<'adapter' | 'environment'>();
  });

  it('ToolState holds only adapterDomain; ServiceState id, adapterDomain, tools, config and secrets', () => {
    expectTypeOf<ToolState>().toEqualTypeOf<{ adapterDomain: Record<string, unknown> }>();
    expectTypeOf<keyof ServiceState>().toEqualTypeOf<
      'id' | 'adapterDomain' | 'tools' | 'config' | 'secrets'
    >();
  });

  it('binds every callback to an execution id', () => {
    type Keys = keyof EnvironmentBindings;
    expectTypeOf<Keys>().toEqualTypeOf<
      | 'invokeTool'
      | 'discoverServices'
      | 'discoverTools'
      | 'describeTool'
      | 'discoverTypes'
      | 'setState'
      | 'emitStdout'
      | 'emitStderr'
      | 'emitOutput'
      | 'setError'
      | 'reportUsage'
      | 'directCalls'
    >();
    type Callbacks = Exclude<Keys, 'directCalls'>;
    expectTypeOf<Parameters<NonNullable<EnvironmentBindings[Callbacks]>>[0]>().toEqualTypeOf<number>();
    // Direct calls: a channel per sandbox process, whose grants are keyed by the execution id too.
    type Channel = ReturnType<NonNullable<EnvironmentBindings['directCalls']>['open']>;
    expectTypeOf<Parameters<Channel['grant']>[0]>().toEqualTypeOf<number>();
    expectTypeOf<Parameters<Channel['revoke']>[0]>().toEqualTypeOf<number>();
  });

  it('shapes the wire types', () => {
    expectTypeOf<ErrorBody['code']>().toExtend<string>();
    expectTypeOf<ErrorBody['reason']>().toEqualTypeOf<ErrorReason>();
    expectTypeOf<(typeof ERROR_REASONS)['tool_disabled']['code']>().toEqualTypeOf<'conflict'>();
    expectTypeOf<ListResponse<number>>().toEqualTypeOf<{
      items: number[];
      nextCursor: string | null;
      hasMore: boolean;
    }>();
    expectTypeOf<Extract<ProcessEvent, { type: 'exit' }>['data']>().toEqualTypeOf<{
      exitState: ExecutionExitState;
      error: string | null;
      errorReason: ErrorReason | null;
    }>();
    expectTypeOf<ProcessResult['output']>().toEqualTypeOf<Record<string, unknown>>();
  });
});
