import type { KeyRing } from '@cyrnel/core';
import type { META_ROUTES, OpenApiResponse } from '@cyrnel/sdk/api';
import { openApiServerUrl } from '../openapi-server-url';
import { identityOf } from './identity';
import type { RouteHandlers } from './route-handler';

/**
 * The handlers of `/health`, `/openapi.json` and `/me`: the document is built once, and each answer
 * names the server the way this request reached it, or at `publicUrl` when given (see
 * {@link openApiServerUrl}); `/me` looks the caller's key and principal up in `keys`.
 */
export function metaHandlers(
  document: OpenApiResponse,
  publicUrl: string | undefined,
  keys: KeyRing | undefined,
): RouteHandlers<typeof META_ROUTES> {
  return {
    health: async () => ({ status: 'ok' }),
    openapi: async (_input, c) => ({
      ...document,
      servers: [{ url: openApiServerUrl({ url: c.req.url, host: c.req.header('host') }, publicUrl) }],
    }),
    me: async ({ caller }, c) => {
      // Whose it is depends on the request's key: never from a cache.
      c.header('Cache-Control', 'no-store');
      return identityOf(caller, keys);
    },
  };
}
