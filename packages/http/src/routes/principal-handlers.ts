import type { Principals } from '@cyrnel/core';
import type { PRINCIPAL_ROUTES } from '@cyrnel/sdk/api';
import { hostValidates, type RouteHandlers } from './route-handler';

/**
 * The handlers of `/principals` (served with `/keys`, over the same key ring); the key ring checks
 * the create body (name, kind, nothing else).
 */
export function principalHandlers(principals: Principals): RouteHandlers<typeof PRINCIPAL_ROUTES> {
  return {
    create: hostValidates(async ({ body }) => principals.create(body)),
    list: async ({ query }) => principals.list(query),
    get: async ({ params }) => principals.get(params.id),
    delete: async ({ params }) => principals.delete(params.id),
  };
}
