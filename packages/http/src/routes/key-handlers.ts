import type { CyrnelHost, KeyRing } from '@cyrnel/core';
import type { KEY_ROUTES } from '@cyrnel/sdk/api';
import type { KeyStreams } from '../middleware/key-streams';
import { hostValidates, type RouteHandlers } from './route-handler';

/** Options of {@link keyHandlers}. */
export interface KeyHandlerOptions {
  /** The streams of stored keys, closed when their key is deleted. */
  readonly streams?: KeyStreams;
  /**
   * Keep an admin among the stored keys (see `KeepAnAdminOptions` of `@cyrnel/core`): true unless
   * the server has a bootstrap admin key, which stays an admin whatever is stored.
   */
  readonly keepAnAdmin: boolean;
}

/**
 * The handlers of `/keys`; the key ring checks the create body (name, role, nothing else).
 * Deleting a key revokes it: requests with it fail from then on, its queued and running processes
 * end (`key_revoked`, on every host) and its open streams here close (the other hosts close
 * theirs when they next look their streams' keys up).
 */
export function keyHandlers(
  keys: KeyRing,
  host: CyrnelHost,
  options: KeyHandlerOptions,
): RouteHandlers<typeof KEY_ROUTES> {
  const { streams, keepAnAdmin } = options;
  return {
    create: hostValidates(async ({ body }, c) => {
      const created = await keys.create(body, { keepAnAdmin });
      // The only answer that ever holds the key: keep it out of every cache.
      c.header('Cache-Control', 'no-store');
      return created;
    }),
    list: async ({ query }) => keys.list(query),
    delete: async ({ params }) => {
      await keys.delete(params.id, { keepAnAdmin });
      await host.processes.revokeKey(params.id);
      streams?.revoke(params.id);
    },
  };
}
