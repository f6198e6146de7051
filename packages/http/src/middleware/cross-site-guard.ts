import { cyrnelError } from '@cyrnel/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { originAllowList, serialiseOrigin } from './allowed-origins';

/** Options of {@link crossSiteGuard}. */
export interface CrossSiteGuardOptions {
  /** Browser origins (`https://app.example.com`) allowed to change state; `*` allows any. */
  readonly allowedOrigins?: readonly string[];
}

const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuse state-changing requests a browser sends on behalf of another site (403 `forbidden`):
 * `Sec-Fetch-Site: cross-site` or `same-site`, or an `Origin` whose host and port differ from
 * the request's `Host`, unless the origin is listed in `allowedOrigins`. Requests without these
 * headers (curl, SDKs, servers) are not from a browser and pass; reads pass too (a cross-site
 * page cannot read the answers: CORS headers go only to the listed origins, on the route groups
 * that ask for them, see `groupCors`).
 */
export function crossSiteGuard(options: CrossSiteGuardOptions = {}): MiddlewareHandler<AppEnv> {
  const allowed = originAllowList(options.allowedOrigins ?? []);
  const refuse = (why: string) =>
    cyrnelError(
      'forbidden',
      `cross-site request refused (${why}); a browser app on another origin must be listed in --allowed-origins (CYRNEL_ALLOWED_ORIGINS)`,
    );
  return async (c, next) => {
    if (!STATE_CHANGING.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    if (origin !== undefined && allowed(origin)) return next();
    const site = c.req.header('sec-fetch-site');
    if (site === 'cross-site' || site === 'same-site') throw refuse(`Sec-Fetch-Site: ${site}`);
    if (origin !== undefined && !sameOrigin(origin, c.req.header('host'))) {
      throw refuse('its Origin differs from its Host');
    }
    return next();
  };
}

/** True when `origin` names the same host and port as the `Host` header (its default port implied). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  const serialised = serialiseOrigin(origin);
  if (serialised === 'null' || host === undefined) return false;
  const url = new URL(serialised);
  const defaultPort = url.protocol === 'https:' ? ':443' : ':80';
  const bare = host.trim().toLowerCase();
  return url.host === (bare.endsWith(defaultPort) ? bare.slice(0, -defaultPort.length) : bare);
}
