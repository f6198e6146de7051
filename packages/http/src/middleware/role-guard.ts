import { cyrnelError } from '@cyrnel/core';
import type { KeyRole } from '@cyrnel/sdk/api';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { isWithin } from '../route-groups';

/** One route an `agent` key may use: `GET` also allows `HEAD`. */
export interface AgentRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** The route as the docs name it, e.g. `/processes/:id`. */
  readonly path: string;
}

/**
 * Every route an `agent` key may use (issue 13): its own processes, reading tools and the
 * environment's docs. Everything else, including routes added later, is `admin` only.
 */
export const AGENT_ROUTES: readonly AgentRoute[] = [
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/openapi.json' },
  { method: 'POST', path: '/processes' },
  { method: 'GET', path: '/processes' },
  { method: 'GET', path: '/processes/:id' },
  { method: 'DELETE', path: '/processes/:id' },
  { method: 'GET', path: '/processes/:id/code' },
  { method: 'GET', path: '/processes/:id/stdout' },
  { method: 'GET', path: '/processes/:id/stderr' },
  { method: 'GET', path: '/processes/:id/output' },
  { method: 'GET', path: '/processes/:id/calls' },
  { method: 'GET', path: '/processes/:id/events' },
  { method: 'POST', path: '/processes/:id/signals/run' },
  { method: 'POST', path: '/processes/:id/signals/kill' },
  { method: 'GET', path: '/tools' },
  { method: 'GET', path: '/tools/:serviceId/:toolId' },
  { method: 'GET', path: '/tools/:serviceId/:toolId/docs' },
  { method: 'GET', path: '/environment/docs' },
  { method: 'GET', path: '/environment/types' },
];

/** `/a/:b` → a regex matching one non-empty segment per parameter (and an optional trailing slash). */
function pattern(path: string): RegExp {
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
 * `agent` only {@link AGENT_ROUTES} and the `agentPaths`. Runs after `bearerAuth`, which sets
 * the caller.
 */
export function roleGuard(options: RoleGuardOptions = {}): MiddlewareHandler<AppEnv> {
  const allowed = AGENT_ROUTES.map((route) => ({ method: route.method, regex: pattern(route.path) }));
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
