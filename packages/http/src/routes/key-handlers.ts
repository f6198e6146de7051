import type { KeyRing } from '@cyrnel/core';
import type { KEY_ROUTES } from '@cyrnel/sdk/api';
import { hostValidates, type RouteHandlers } from './route-handler';

/** The handlers of `/keys`; the key ring checks the create body (name, role, nothing else). */
export function keyHandlers(keys: KeyRing): RouteHandlers<typeof KEY_ROUTES> {
  return {
    create: hostValidates(async ({ body }, c) => {
      const created = await keys.create(body);
      // The only answer that ever holds the key: keep it out of every cache.
      c.header('Cache-Control', 'no-store');
      return created;
    }),
    list: async ({ query }) => keys.list(query),
    delete: async ({ params }) => keys.delete(params.id),
  };
}
