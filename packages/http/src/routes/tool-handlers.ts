import type { TOOL_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import type { RouteHandlers } from './route-handler';

/** The handlers of `/tools`. */
export function toolHandlers({ host }: RouteContext): RouteHandlers<typeof TOOL_ROUTES> {
  return {
    list: async ({ query }) => host.tools.list(query),
    version: async () => ({ version: host.catalogVersion() }),
    get: async ({ params }) => host.tools.get(params.serviceId, params.toolId),
    docs: async ({ params }) => host.tools.docs(params.serviceId, params.toolId),
    setEnabled: async ({ params, body }) =>
      host.tools.setEnabled(params.serviceId, params.toolId, body.enabled),
  };
}
