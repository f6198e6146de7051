import type { META_ROUTES, OpenApiResponse } from '@cyrnel/sdk/api';
import type { RouteHandlers } from './route-handler';

/** The handlers of `/health` and `/openapi.json` (the document, built once). */
export function metaHandlers(document: OpenApiResponse): RouteHandlers<typeof META_ROUTES> {
  return {
    health: async () => ({ status: 'ok' }),
    openapi: async () => document,
  };
}
