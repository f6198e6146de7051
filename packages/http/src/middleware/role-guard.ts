import { cyrnelError } from '@cyrnel/core';
import { type KeyRole, listRoutes, type RouteRole } from '@cyrnel/sdk/api';
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
   * More paths an `agent` (and so an `approver`) may use with any method, each with everything
   * below it: route groups mounted with `auth: 'agent'` or `'none'`.
   */
  readonly agentPaths?: readonly string[];
}

/** The route roles each key role may use (an `approver` is an agent that also decides approvals). */
const ROUTE_ROLES: Readonly<Record<Exclude<KeyRole, 'admin'>, readonly RouteRole[]>> = {
  agent: ['none', 'agent'],
  approver: ['none', 'agent', 'approver'],
};

/**
 * Refuse (403 `forbidden`) what the caller's role may not do: `admin` may use every route;
 * `agent` only the routes of `API_ROUTES` whose role is `agent` or `none` and the `agentPaths`;
 * `approver` those and the routes whose role is `approver` (reading and deciding approvals);
 * anything else, a path no route has included, is an admin's. Runs after `bearerAuth`, which
 * sets the caller.
 */
export function roleGuard(options: RoleGuardOptions = {}): MiddlewareHandler<AppEnv> {
  const routes = listRoutes().map(({ route }) => ({
    role: route.role,
    method: route.method,
    regex: pattern(route.path),
  }));
  const agentPaths = options.agentPaths ?? [];
  /** The role a request needs: the strictest of the routes that match it (none matching: admin). */
  const needs = (method: string, path: string): RouteRole => {
    const as = method === 'HEAD' ? 'GET' : method;
    const matching = routes.filter((route) => route.method === as && route.regex.test(path));
    if (matching.length === 0) return 'admin';
    return matching.reduce<RouteRole>((strictest, route) => stricter(strictest, route.role), 'none');
  };
  return async (c, next) => {
    const { role } = c.get('caller');
    if (role === 'admin') return next();
    const { method, path } = c.req;
    if (agentPaths.some((prefix) => isWithin(path, prefix))) return next();
    const needed = needs(method, path);
    if (!ROUTE_ROLES[role].includes(needed)) {
      const who = needed === 'approver' ? 'an approver or admin key' : 'an admin key';
      throw cyrnelError(
        'forbidden',
        `the ${role} role may not use ${method} ${path.slice(0, 200)} (${who} may)`,
      );
    }
    return next();
  };
}

const STRICTNESS: readonly RouteRole[] = ['none', 'agent', 'approver', 'admin'];

function stricter(a: RouteRole, b: RouteRole): RouteRole {
  return STRICTNESS.indexOf(a) >= STRICTNESS.indexOf(b) ? a : b;
}
