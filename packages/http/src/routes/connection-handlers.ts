import type { ConnectionCaller } from '@cyrnel/core';
import type { CONNECTION_ROUTES } from '@cyrnel/sdk/api';
import type { Caller } from '../app-env';
import type { RouteContext } from './route-context';
import { hostValidates, type RouteHandlers } from './route-handler';

/** Who asks, as the connections see it: an admin key manages all of them, any other key its principal's own. */
const asConnectionCaller = (caller: Caller): ConnectionCaller => ({
  principalId: caller.principalId,
  admin: caller.role === 'admin',
});

/** The handlers of `/services/:serviceId/connections`; the host checks bodies, names and ownership. */
export function connectionHandlers(ctx: RouteContext): RouteHandlers<typeof CONNECTION_ROUTES> {
  const connections = () => ctx.host.connections;
  return {
    // Few per service (one per person at most, plus shared ones): one page.
    list: async ({ params, caller }) => ({
      items: await connections().list(params.serviceId, asConnectionCaller(caller)),
      nextCursor: null,
      hasMore: false,
    }),
    create: hostValidates(async ({ params, body, caller }) =>
      connections().create(params.serviceId, body, asConnectionCaller(caller)),
    ),
    get: async ({ params, caller }) =>
      connections().get(params.serviceId, params.name, asConnectionCaller(caller)),
    update: hostValidates(async ({ params, body, caller }) =>
      connections().update(params.serviceId, params.name, body, asConnectionCaller(caller)),
    ),
    delete: async ({ params, caller }) =>
      connections().delete(params.serviceId, params.name, asConnectionCaller(caller)),
    authorize: hostValidates(async ({ params, body, caller }) =>
      connections().authorize(params.serviceId, params.name, body, asConnectionCaller(caller)),
    ),
    // No key: the person's browser arrives from the authorization server; the state is the secret.
    callback: async ({ query }) => {
      const { serviceId, name } = await connections().callback(query ?? {});
      return `Connected: the connection ${name} of the service ${serviceId} is signed in. You may close this window.\n`;
    },
  };
}
