import {
  createGuardedFetch,
  discoverAuthorizationServer,
  isCyrnelError,
  type KeyRing,
  type OAuthServerMetadata,
} from '@cyrnel/core';
import type { AppEnv, Caller, OAuthBearerOptions, RouteGroup } from '@cyrnel/http';
import type { OutboundPolicy } from '@cyrnel/sdk';
import { Hono } from 'hono';
import { createRemoteJWKSet, customFetch, type JWTPayload, jwtVerify } from 'jose';

/** Where RFC 9728 puts a protected resource's metadata. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** Options of {@link mcpOAuth}. */
export interface McpOAuthOptions {
  /** The authorization server's issuer (`--oauth-issuer`). */
  readonly issuer: string;
  /** The server's public URL, read when first needed (the bound address is known after listen). */
  readonly publicUrl: () => string;
  /** The audience tokens must name (`--oauth-audience`); default the public MCP URL. */
  readonly audience?: string;
  /** The host's outbound policy: discovery and the JWKS are fetched through it. */
  readonly outbound: OutboundPolicy;
  /** The key ring, whose principals the tokens' subjects become. */
  readonly keys: KeyRing;
  /** Why a token was refused, at debug level (never the token). */
  readonly logger: {
    debug(message: string, data?: Record<string, unknown>): void;
    warn(message: string, data?: Record<string, unknown>): void;
  };
}

/** What a JWKS fetch and a discovery may take: the keys of a real server fit in far less. */
const FETCH_LIMITS = { timeoutMs: 10_000, maxBytes: 1024 * 1024 };
/** After a failed discovery, the next token tries again no sooner than this. */
const RETRY_MS = 10_000;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The caller's name from its token: `name`, else `email`, else `preferred_username`, else `sub`. */
function nameOf(payload: JWTPayload): string {
  for (const claim of ['name', 'email', 'preferred_username']) {
    const value = payload[claim];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return payload.sub ?? '';
}

/**
 * `/mcp` as an OAuth protected resource (RFC 9728): the metadata documents at
 * `/.well-known/oauth-protected-resource` and `…/mcp` naming the resource (the public MCP URL) and
 * the authorization server, and the bearer option that accepts that server's JWT access tokens on
 * `/mcp` (signature by its JWKS, issuer, audience, expiry). A token's identity (issuer and `sub`)
 * is a principal, made on its first use as a person named from its `name`, `email` or `sub`; it
 * acts as an `agent` owning the processes of key id `principal:<id>`, so the agent rule of
 * `callerProcesses` keeps principals apart.
 *
 * @example
 * ```ts
 * const oauth = mcpOAuth({ issuer, publicUrl: () => url, outbound, keys, logger });
 * createApp(host, { routes: [mcp.group, oauth.group], oauth: oauth.bearer });
 * ```
 */
export function mcpOAuth(options: McpOAuthOptions): { group: RouteGroup; bearer: OAuthBearerOptions } {
  const resource = () => `${options.publicUrl().replace(/\/+$/, '')}/mcp`;
  const audience = () => options.audience ?? resource();
  const metadataUrl = () => `${options.publicUrl().replace(/\/+$/, '')}${PROTECTED_RESOURCE_PATH}/mcp`;
  const fetch = createGuardedFetch({ outbound: options.outbound, ...FETCH_LIMITS });
  let server:
    | Promise<{ metadata: OAuthServerMetadata; jwks: ReturnType<typeof createRemoteJWKSet> }>
    | undefined;
  let failedAt = 0;

  const authorizationServer = () => {
    if (!server && Date.now() - failedAt >= RETRY_MS) {
      server = discoverAuthorizationServer(options.issuer, {
        outbound: options.outbound,
        // The operator named this issuer; an http one is their choice (a local server, a test).
        allowHttp: options.issuer.startsWith('http:'),
        timeoutMs: FETCH_LIMITS.timeoutMs,
      }).then((metadata) => {
        if (!metadata.jwksUri) throw new Error(`the metadata of ${metadata.issuer} names no jwks_uri`);
        return {
          metadata,
          jwks: createRemoteJWKSet(new URL(metadata.jwksUri), {
            [customFetch]: fetch,
            timeoutDuration: FETCH_LIMITS.timeoutMs,
          }),
        };
      });
      server.catch((error: unknown) => {
        options.logger.warn('the OAuth authorization server could not be discovered', {
          issuer: options.issuer,
          error: error instanceof Error ? error.message : String(error),
        });
        server = undefined;
        failedAt = Date.now();
      });
    }
    return server;
  };

  const verify = async (token: string): Promise<Caller | undefined> => {
    if (!JWT.test(token)) return undefined;
    const found = authorizationServer();
    if (!found) return undefined;
    let payload: JWTPayload;
    try {
      const { metadata, jwks } = await found;
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: metadata.issuer,
        audience: audience(),
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      options.logger.debug('an access token was refused', {
        reason: isCyrnelError(error) ? error.reason : error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
    const subject = `${payload.iss}#${payload.sub}`;
    const principal = await options.keys.principals.forSubject({ subject, name: nameOf(payload) });
    return {
      keyId: `principal:${principal.id}`,
      principalId: principal.id,
      role: 'agent',
      oauthSubject: subject,
    };
  };

  const app = new Hono<AppEnv>();
  const document = () => ({
    resource: resource(),
    authorization_servers: [options.issuer],
    bearer_methods_supported: ['header'],
    resource_name: 'cyrnel',
  });
  app.get('/', (c) => c.json(document()));
  app.get('/mcp', (c) => c.json(document()));
  return {
    group: { path: PROTECTED_RESOURCE_PATH, app, auth: 'none' },
    bearer: {
      paths: ['/mcp'],
      verify,
      get challenge() {
        return `Bearer resource_metadata="${metadataUrl()}"`;
      },
    },
  };
}
