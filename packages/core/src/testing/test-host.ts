import { cyrnelError, type EnvironmentModule, type ToolDescription } from '@cyrnel/sdk';
import type { EnvironmentProvider, ToolGateway } from '../index';

/** Test scaffolding for the host's environment port: one switchable environment, leases counted. */
export interface TestEnvironments extends EnvironmentProvider {
  current: EnvironmentModule | undefined;
  /** Leases not released yet. */
  readonly held: () => number;
}

/** Create a provider leasing `current`. */
export function createTestEnvironments(current?: EnvironmentModule): TestEnvironments {
  let held = 0;
  const provider: TestEnvironments = {
    current,
    held: () => held,
    active: () => provider.current,
    lease() {
      const environment = provider.current;
      if (!environment) return undefined;
      held++;
      let released = false;
      return {
        moduleId: 'script',
        environment,
        release() {
          if (released) throw new Error('lease released twice');
          released = true;
          held--;
        },
      };
    },
  };
  return provider;
}

/** Test scaffolding for the host's tool port: tools are functions in a Map keyed `service.tool`. */
export function createMapToolGateway(
  tools: Map<string, (parameters: Record<string, unknown>) => Promise<unknown>>,
): ToolGateway {
  const find = (serviceId: string, toolId: string) => {
    const tool = tools.get(`${serviceId}.${toolId}`);
    if (!tool) throw cyrnelError('tool_not_found', `tool ${serviceId}.${toolId} not found`);
    return tool;
  };
  return {
    invoke: async ({ serviceId, toolId, parameters }) => find(serviceId, toolId)(parameters),
    discoverServices: async () =>
      [...new Set([...tools.keys()].map((key) => key.split('.')[0] as string))].map((id) => ({
        id,
        name: id,
        description: '',
        toolCount: [...tools.keys()].filter((key) => key.startsWith(`${id}.`)).length,
      })),
    discoverTools: async () =>
      [...tools.keys()].map((key) => {
        const [serviceId = '', toolId = ''] = key.split('.');
        return { serviceId, toolId, name: toolId, description: '' };
      }),
    async describeTool(serviceId, toolId): Promise<ToolDescription> {
      find(serviceId, toolId);
      return { serviceId, toolId, name: toolId, description: '', inputSchema: {}, outputSchema: {} };
    },
  };
}
