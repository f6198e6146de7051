import { createHash } from 'node:crypto';
import type { TOOL_ROUTES } from '@cyrnel/sdk/api';
import type { RouteContext } from './route-context';
import type { RouteHandlers } from './route-handler';

/** The handlers of `/tools`. */
export function toolHandlers({ host }: RouteContext): RouteHandlers<typeof TOOL_ROUTES> {
  // The host's version names its revision and active adapters: agents get a digest of it, which
  // changes with it and says nothing else (hashed once per version, not per request).
  let seen = '';
  let digest = '';
  const version = () => {
    const state = host.catalogVersion();
    if (state !== seen) {
      seen = state;
      digest = createHash('sha256').update(state).digest('base64url').slice(0, 22);
    }
    return digest;
  };
  return {
    list: async ({ query }) => host.tools.list(query),
    version: async () => ({ version: version() }),
    get: async ({ params }) => host.tools.get(params.serviceId, params.toolId),
    docs: async ({ params }) => host.tools.docs(params.serviceId, params.toolId),
    setEnabled: async ({ params, body }) =>
      host.tools.setEnabled(params.serviceId, params.toolId, body.enabled),
  };
}
