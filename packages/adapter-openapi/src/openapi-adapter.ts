import type { AdapterModule, ServiceDefinition, ServiceState } from '@cyrnel/sdk';
import { buildRequest } from './build-request';
import { decodeResponse } from './decode-response';
import { generateDefinition } from './generate-definition';
import { createHttpTransport, type HttpTransport } from './http-transport';
import type { OperationPlan, ServicePlan } from './operation-model';

interface HydratedService {
  readonly state: ServiceState;
  readonly transport: HttpTransport;
}

/**
 * Create the `openapi` adapter: OpenAPI 3.0/3.1 and Swagger 2.0 documents in, one tool per operation
 * out; each hydrated service gets its own keep-alive connection pool, closed on dehydrate and teardown.
 *
 * @example
 * ```ts
 * const adapter = createOpenApiAdapter();
 * const definition = await adapter.generateDefinition(petstoreYaml);
 * ```
 */
export function createOpenApiAdapter(): AdapterModule {
  const services = new Map<string, HydratedService>();

  function drop(id: string): void {
    services.get(id)?.transport.close();
    services.delete(id);
  }

  return {
    async setup() {},
    async teardown() {
      for (const id of [...services.keys()]) drop(id);
    },
    async generateDefinition(input: string): Promise<ServiceDefinition> {
      return generateDefinition(input);
    },
    async hydrateService(state) {
      drop(state.id);
      services.set(state.id, { state, transport: createHttpTransport() });
    },
    async dehydrateService(id) {
      drop(id);
    },
    async invoke({ serviceId, toolId, parameters }) {
      const service = services.get(serviceId);
      if (!service) throw new Error(`service '${serviceId}' is not active in the openapi adapter`);
      const tool = Object.hasOwn(service.state.tools, toolId) ? service.state.tools[toolId] : undefined;
      if (!tool) throw new Error(`service '${serviceId}' has no tool '${toolId}'`);
      const request = buildRequest({
        service: service.state.adapterDomain as unknown as ServicePlan,
        operation: tool.adapterDomain as unknown as OperationPlan,
        config: service.state.config,
        secrets: service.state.secrets,
        parameters: parameters ?? {},
      });
      return decodeResponse(await service.transport.send(request));
    },
  };
}
