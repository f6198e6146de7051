import type { REGISTRY_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import type { RouteHandlers } from './route-handler';

/** The handlers of `/registries`: the configured registries and what they offer, read now. */
export function registryHandlers({ host }: RouteContext): RouteHandlers<typeof REGISTRY_ROUTES> {
  return {
    list: async () => ({ items: await host.registries.list() }),
    services: async () => ({ items: await host.registries.services() }),
    modules: async () => ({ items: await host.registries.modules() }),
  };
}
