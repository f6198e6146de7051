import { cyrnelError } from '@cyrnel/core';
import { type KeyRole, listRoutes } from '@cyrnel/sdk/api';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { isWithin } from '../route-groups';

/** `/a/:b` → a regex matching one non-empty segment per parameter (and an optional trailing slash). */
export function pattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** Options of {@link roleGuard}. */
export interface RoleGuardOptions {
  /**
   * More paths an `agent` may use with any method, each with everything below it: route groups
   * mounted with `auth: 'agent'` or `'none'`.
   */
  readonly agentPaths?: readonly string[];
}

/**
 * Refuse (403 `forbidden`) what the caller's role may not do: `admin` may use every route,
 * `agent` only the routes of `API_ROUTES` whose role is `agent` or `none` and the `agentPaths`;
 * anything else, a path no route has included, is an admin's. Runs after `bearerAuth`, which
 * sets the caller.
 */
export function roleGuard(options: RoleGuardOptions = {}): MiddlewareHandler<AppEnv> {
  const allowed = listRoutes()
    .filter(({ route }) => route.role !== 'admin')
    .map(({ route }) => ({ method: route.method, regex: pattern(route.path) }));
  const agentPaths = options.agentPaths ?? [];
  const roleMay: Record<KeyRole, (method: string, path: string) => boolean> = {
    admin: () => true,
    agent: (method, path) => {
      if (agentPaths.some((prefix) => isWithin(path, prefix))) return true;
      const as = method === 'HEAD' ? 'GET' : method;
      return allowed.some((route) => route.method === as && route.regex.test(path));
    },
  };
  return async (c, next) => {
    const { role } = c.get('caller');
    if (!roleMay[role](c.req.method, c.req.path)) {
      throw cyrnelError(
        'forbidden',
        `the ${role} role may not use ${c.req.method} ${c.req.path.slice(0, 200)} (an admin key may)`,
      );
    }
    return next();
  };
}
