import type { META_ROUTES, OpenApiResponse } from '@cyrnel/sdk/api';
import { openApiServerUrl } from '../openapi-server-url';
import type { RouteHandlers } from './route-handler';

/**
 * The handlers of `/health` and `/openapi.json`: the document is built once, and each answer
 * names the server the way this request reached it, or at `publicUrl` when given (see
 * {@link openApiServerUrl}).
 */
export function metaHandlers(
  document: OpenApiResponse,
  publicUrl?: string,
): RouteHandlers<typeof META_ROUTES> {
  return {
    health: async () => ({ status: 'ok' }),
    openapi: async (_input, c) => ({
      ...document,
      servers: [{ url: openApiServerUrl({ url: c.req.url, host: c.req.header('host') }, publicUrl) }],
    }),
  };
}
