import type { CyrnelHost, KeyRing } from '@cyrnel/core';
import type { KEY_ROUTES } from '@cyrnel/sdk/api';
import type { KeyStreams } from '../middleware/key-streams';
import { hostValidates, type RouteHandlers } from './route-handler';

/**
 * The handlers of `/keys`; the key ring checks the create body (name, role, nothing else).
 * Deleting a key revokes it: requests with it fail from then on, its queued and running processes
 * end (`key_revoked`, on every host) and its open streams here close (the other hosts close
 * theirs when they next look their streams' keys up).
 */
export function keyHandlers(
  keys: KeyRing,
  host: CyrnelHost,
  streams?: KeyStreams,
): RouteHandlers<typeof KEY_ROUTES> {
  return {
    create: hostValidates(async ({ body }, c) => {
      const created = await keys.create(body);
      // The only answer that ever holds the key: keep it out of every cache.
      c.header('Cache-Control', 'no-store');
      return created;
    }),
    list: async ({ query }) => keys.list(query),
    delete: async ({ params }) => {
      await keys.delete(params.id);
      await host.processes.revokeKey(params.id);
      streams?.revoke(params.id);
    },
  };
}
