import { createHash, timingSafeEqual } from 'node:crypto';
import { CyrnelError } from '@cyrnel/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';

/** Paths reachable without a key. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/health']);

/**
 * Require `Authorization: Bearer <apiKey>` (SPEC §6). Both sides are hashed first so the
 * comparison is constant-time regardless of the presented key's length.
 */
export function bearerAuth(apiKey: string): MiddlewareHandler<AppEnv> {
  const expected = createHash('sha256').update(apiKey).digest();
  return async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
    const presented = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    if (!match || !timingSafeEqual(presented, expected)) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new CyrnelError('unauthorized', 'missing or invalid API key (Authorization: Bearer <key>)');
    }
    return next();
  };
}
