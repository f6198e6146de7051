import { createHash, timingSafeEqual } from 'node:crypto';
import { cyrnelError, type KeyRing } from '@cyrnel/core';
import { listRoutes } from '@cyrnel/sdk/api';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Caller } from '../app-env';
import { isWithin } from '../route-groups';

/** Options of {@link bearerAuth}. */
export interface BearerAuthOptions {
  /** The bootstrap key: an `admin` key given at start, compared in constant time, never stored. */
  readonly apiKey?: string;
  /** Stored keys with roles. */
  readonly keys?: KeyRing;
  /**
   * More paths reachable without a key besides `/health` and `/openapi.json`, each with everything below it
   * (`/ui` covers `/ui/app.js`): route groups mounted with `auth: 'none'`.
   */
  readonly publicPaths?: readonly string[];
  /**
   * Bearer tokens of a trusted OAuth authorization server, accepted besides keys on some paths
   * (`/mcp`). With it, the server is never open: every request needs a key or, there, a token.
   */
  readonly oauth?: OAuthBearerOptions;
}

/** How {@link bearerAuth} accepts OAuth access tokens: see {@link BearerAuthOptions.oauth}. */
export interface OAuthBearerOptions {
  /** Where tokens are accepted, each path with everything below it (`/mcp`). */
  readonly paths: readonly string[];
  /** The caller a token that is no key is, or undefined when the token is not valid. */
  verify(token: string): Promise<Caller | undefined>;
  /**
   * The `WWW-Authenticate` value of a 401 on those paths, e.g.
   * `Bearer resource_metadata="https://cyrnel.example.com/.well-known/oauth-protected-resource/mcp"`
   * (RFC 9728), which tells a client where to sign in.
   */
  readonly challenge: string;
}

/** Paths reachable without a key, with any method: those of the routes whose role is `none`. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set(
  listRoutes()
    .filter(({ route }) => route.role === 'none')
    .map(({ route }) => route.path),
);
/** An open server's caller, and the bootstrap key's: an admin, which may also decide approvals. */
const OPEN: Caller = Object.freeze({ keyId: null, principalId: null, role: 'admin' });
const BOOTSTRAP: Caller = Object.freeze({ ...OPEN, bootstrap: true });
/**
 * Who asks on a public path of a route group: nobody known, so the least role (even on an open
 * server): an `agent`, never an `approver`, so nobody unknown decides an approval.
 */
const ANONYMOUS: Caller = Object.freeze({ keyId: null, principalId: null, role: 'agent' });

/**
 * Require `Authorization: Bearer <key>` and set the request's `caller`: the `apiKey` option's key
 * is an admin, a stored key has its role (`admin`, `agent` or `approver`), and on the `oauth`
 * paths an access token the `oauth` option verifies is the caller it answers. A server without any
 * key (no `apiKey`, nothing stored) stays open, every request an admin, until the first key is
 * stored; from then on keys are required until the server stops, even if every key is deleted
 * again.
 */
export function bearerAuth(options: BearerAuthOptions = {}): MiddlewareHandler<AppEnv> {
  const { keys } = options;
  const publicPaths = options.publicPaths ?? [];
  const bootstrap =
    options.apiKey === undefined || options.apiKey === '' ? undefined : sha256(options.apiKey);
  const { oauth } = options;
  let locked = bootstrap !== undefined || oauth !== undefined;
  const open = async (): Promise<boolean> => {
    if (!locked) locked = keys !== undefined && (await keys.count()) > 0;
    return !locked;
  };
  return async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) {
      c.set('caller', OPEN);
      return next();
    }
    if (publicPaths.some((prefix) => isWithin(c.req.path, prefix))) {
      c.set('caller', ANONYMOUS);
      return next();
    }
    if (await open()) {
      c.set('caller', OPEN);
      return next();
    }
    const match = /^Bearer ([^\s]+)$/i.exec((c.req.header('authorization') ?? '').trim());
    const presented = match?.[1] ?? '';
    // Hashed first so the comparison is constant-time whatever the presented key's length.
    if (bootstrap && timingSafeEqual(sha256(presented), bootstrap)) {
      c.set('caller', BOOTSTRAP);
      return next();
    }
    const key = presented === '' ? undefined : await keys?.authenticate(presented);
    if (!key) {
      // The OAuth option, when this path takes tokens.
      const here = oauth?.paths.some((path) => isWithin(c.req.path, path)) ? oauth : undefined;
      const signedIn = here && presented !== '' ? await here.verify(presented) : undefined;
      if (signedIn) {
        c.set('caller', signedIn);
        return next();
      }
      c.header('WWW-Authenticate', here ? here.challenge : 'Bearer');
      throw cyrnelError(
        'unauthorized',
        here
          ? 'missing or invalid API key or access token (Authorization: Bearer <key or token>)'
          : 'missing or invalid API key (Authorization: Bearer <key>)',
      );
    }
    c.set('caller', { keyId: key.id, principalId: key.principalId, role: key.role });
    return next();
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
