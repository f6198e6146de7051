import { listRoutes } from '@cyrnel/sdk/api';
import type { Hono } from 'hono';
import type { AppEnv } from './app-env';

/**
 * Who may use an extra route group: `admin` keys only (the default, like every route not listed
 * for agents), `agent` keys too, or anyone without a key (`none`, like `/health`).
 */
export type RouteGroupAuth = 'admin' | 'agent' | 'none';

/** Extra routes `createApp` mounts beside its own, behind the same middleware. */
export interface RouteGroup {
  /** Where the group is mounted, e.g. `/mcp`: its routes answer `/mcp` and `/mcp/...`. */
  readonly path: string;
  /** The routes, relative to `path`; `c.get('caller')` says who is asking. */
  readonly app: Hono<AppEnv>;
  /** Who may use it. Default `admin`. */
  readonly auth?: RouteGroupAuth;
  /** Count its requests against each key's request rate (`rateLimit` of `createApp`), like runs. Default false. */
  readonly rateLimited?: boolean;
  /**
   * Answer browsers of the allowed origins (`allowedOrigins` of `createApp`) with CORS: the
   * preflight, then the allowed origin on every answer. Default none (no CORS header at all).
   */
  readonly cors?: RouteGroupCors;
}

/** What a route group's CORS answers allow. */
export interface RouteGroupCors {
  /** Methods a browser may send (the preflight's `Access-Control-Allow-Methods`). */
  readonly allowMethods: readonly string[];
  /** Request headers a browser may send besides the safelisted ones. */
  readonly allowHeaders: readonly string[];
  /** Response headers a page may read besides the safelisted ones. */
  readonly exposeHeaders: readonly string[];
}

/** The first segments the app's own routes use (`/health`, `/services`, …): a group may not take them over. */
const OWN_PREFIXES = [...new Set(listRoutes().map(({ route }) => `/${route.path.split('/')[1]}`))];

// Segments as in `/mcp`, and `.well-known` (RFC 8615) for metadata documents.
const GROUP_PATH = /^(?:\/(?:\.well-known|[A-Za-z0-9][A-Za-z0-9._~-]*))+$/;

/** True when `path` is `prefix` or below it (`/mcp`, `/mcp/x`; not `/mcpx`). */
export function isWithin(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Refuse (a programming error: thrown at `createApp`) a group path that is malformed or overlaps another route. */
export function checkRouteGroups(groups: readonly RouteGroup[]): void {
  const taken = [...OWN_PREFIXES];
  for (const { path } of groups) {
    if (!GROUP_PATH.test(path)) {
      throw new Error(
        `route group path ${JSON.stringify(path)} must be like /mcp (segments, no trailing slash)`,
      );
    }
    const clash = taken.find((other) => isWithin(path, other) || isWithin(other, path));
    if (clash !== undefined) throw new Error(`route group path ${path} overlaps ${clash}`);
    taken.push(path);
  }
}

/** The paths of the groups with one of these auth levels. */
export function groupPaths(groups: readonly RouteGroup[], ...auth: readonly RouteGroupAuth[]): string[] {
  return groups.filter((group) => auth.includes(group.auth ?? 'admin')).map((group) => group.path);
}
