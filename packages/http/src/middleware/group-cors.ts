import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { isWithin, type RouteGroup, type RouteGroupCors } from '../route-groups';
import { originAllowList } from './allowed-origins';

/** Options of {@link groupCors}. */
export interface GroupCorsOptions {
  /** The route groups; those with `cors` answer browsers of the allowed origins. */
  readonly groups: readonly RouteGroup[];
  /** Browser origins (`https://app.example.com`) allowed to call them; `*` allows any. */
  readonly allowedOrigins: readonly string[];
}

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600';

/** The headers every answer to an allowed origin carries: caches must keep answers apart by origin. */
function allowOrigin(headers: Headers, origin: string): void {
  headers.set('access-control-allow-origin', origin);
  headers.append('vary', 'Origin');
}

/**
 * CORS for the route groups that ask for it (`RouteGroup.cors`), to the origins of
 * `--allowed-origins` only: a preflight (`OPTIONS` with `Access-Control-Request-Method`) is
 * answered here, before the key is asked for (a browser sends none with it), with the group's
 * methods and request headers; every other answer, errors included, allows the origin and
 * exposes the group's response headers. Any other origin gets no CORS header, so a browser keeps
 * its page from reading the answers; the cross-site guard still refuses its writes.
 *
 * @example
 * ```ts
 * app.use(groupCors({ groups, allowedOrigins: ['https://inspector.example.com'] }));
 * ```
 */
export function groupCors(options: GroupCorsOptions): MiddlewareHandler<AppEnv> {
  const allowed = originAllowList(options.allowedOrigins);
  const withCors = options.groups.flatMap((group) =>
    group.cors ? [{ path: group.path, cors: group.cors }] : [],
  );
  const corsOf = (path: string): RouteGroupCors | undefined =>
    withCors.find((group) => isWithin(path, group.path))?.cors;
  return async (c, next) => {
    const origin = c.req.header('origin');
    const cors = origin === undefined || !allowed(origin) ? undefined : corsOf(c.req.path);
    if (origin === undefined || cors === undefined) return next();
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined) {
      const headers = new Headers({
        'access-control-allow-methods': cors.allowMethods.join(', '),
        'access-control-allow-headers': cors.allowHeaders.join(', '),
        'access-control-max-age': PREFLIGHT_MAX_AGE,
        vary: 'Access-Control-Request-Method, Access-Control-Request-Headers',
      });
      allowOrigin(headers, origin);
      return new Response(null, { status: 204, headers });
    }
    await next();
    allowOrigin(c.res.headers, origin);
    if (cors.exposeHeaders.length > 0)
      c.res.headers.set('access-control-expose-headers', cors.exposeHeaders.join(', '));
  };
}
