import { timingSafeEqual } from 'node:crypto';
import { cyrnelError } from '@cyrnel/sdk';
import {
  auth,
  type FetchLike,
  InsufficientScopeError,
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { causes } from '../error-causes';
import { createStoredOAuthProvider, type StoredOAuthProviderOptions } from './provider';

/** How long an authorization may take between its redirect and its callback. */
export const DEFAULT_FLOW_LIFETIME_MS = 10 * 60 * 1000;

/** Options of {@link createOAuthSession}. */
export interface OAuthSessionOptions extends Omit<StoredOAuthProviderOptions, 'onRedirect'> {
  /** The MCP server's endpoint: the protected resource. */
  readonly serverUrl: string;
  /** The fetch of discovery, registration and token requests (the adapter's guarded one). */
  readonly fetch?: FetchLike;
  /** Lifetime of one authorization (default 10 minutes). */
  readonly flowLifetimeMs?: number;
  /**
   * Accept authorization server metadata whose `issuer` is not the URL it was found at (RFC 8414
   * requires they match). Weakens the defence against mixed-up authorization servers: only for a
   * server known to publish such metadata, set by the operator.
   */
  readonly skipIssuerMetadataValidation?: boolean;
}

/** An authorization a person has to give before the MCP server answers. */
export interface AuthorizationNeeded {
  /** Where to send the person: the authorization server's page, with `state` and the PKCE challenge. */
  readonly authorizationUrl: string;
  /** The scope asked for, if any. */
  readonly scope?: string;
  /**
   * True when the server asked for scopes the current token already has: authorizing again
   * cannot help (the server's policy refuses), so the call fails instead of asking a person.
   */
  readonly futile: boolean;
}

/** Outcome of {@link OAuthSession.beginAuthorization}. */
export type BeginResult =
  | { readonly authorized: true }
  | ({ readonly authorized: false } & AuthorizationNeeded);

/** The callback's query: `code` and `state`, or `error` when the person or the server refused. */
export interface AuthorizationCallback {
  readonly code?: string;
  readonly state?: string;
  readonly iss?: string;
  readonly error?: string;
  readonly error_description?: string;
}

/** The OAuth client of one connection to one MCP server. */
export interface OAuthSession {
  /** For the Streamable HTTP transport's `authProvider`. */
  readonly provider: OAuthClientProvider;
  /** For the transport's option of the same name (see {@link OAuthSessionOptions}). */
  readonly skipIssuerMetadataValidation: boolean;
  /**
   * Start an authorization (discovery, registration, PKCE): the URL a person must open, or
   * `authorized` when stored tokens could be refreshed instead.
   */
  beginAuthorization(options?: { scope?: string; resourceMetadataUrl?: URL }): Promise<BeginResult>;
  /** Redeem the callback's code (its `state` checked first): the tokens are stored. */
  finishAuthorization(callback: AuthorizationCallback): Promise<void>;
  /**
   * After a request of the transport failed: the authorization the SDK started because of a
   * 401 or a 403 `insufficient_scope`, if that is why (taken: asked once per failure).
   */
  authorizationNeeded(error: unknown): AuthorizationNeeded | undefined;
}

/** The SDK marks an error that came out of its authorization (discovery, registration, tokens). */
const AUTH_SEAM = Symbol.for('mcp.authSeamEscape');

/**
 * True when `error` came out of the SDK's authorization steps (a resource that is not the
 * server's, an authorization server's refusal, a token endpoint without TLS) rather than the MCP
 * request itself.
 *
 * @example
 * ```ts
 * if (isAuthorizationFailure(error)) throw cyrnelError('upstream_unauthorized', `authorizing failed: ${error.message}`);
 * ```
 */
export function isAuthorizationFailure(error: unknown): boolean {
  return causes(error).some(
    (cause) =>
      typeof cause === 'object' && cause !== null && (cause as Record<symbol, unknown>)[AUTH_SEAM] === true,
  );
}

function scopes(value: string | undefined): Set<string> {
  return new Set((value ?? '').split(' ').filter(Boolean));
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The OAuth client of one connection: a provider for the transport over `store`, and the two
 * halves of an authorization a host drives — `beginAuthorization` gives the URL to send a person
 * to, `finishAuthorization` takes the callback's `code` and `state`.
 *
 * @example
 * ```ts
 * const session = createOAuthSession({
 *   serverUrl: 'https://mcp.example.com/mcp',
 *   store,
 *   redirectUrl: 'http://127.0.0.1:9371/oauth/callback',
 *   clientName: 'cyrnel',
 * });
 * const begun = await session.beginAuthorization();
 * if (!begun.authorized) sendPersonTo(begun.authorizationUrl);
 * // GET /oauth/callback?code=…&state=… reaches the host, which routes it here:
 * await session.finishAuthorization({ code, state });
 * ```
 */
export function createOAuthSession(options: OAuthSessionOptions): OAuthSession {
  const { store, serverUrl } = options;
  const lifetime = options.flowLifetimeMs ?? DEFAULT_FLOW_LIFETIME_MS;
  let redirected: { url: URL; tokenScope: string | undefined } | undefined;

  const provider = createStoredOAuthProvider({
    ...options,
    onRedirect: (url, current) => {
      redirected = { url, tokenScope: current.tokenScope };
    },
  });

  const needed = (): AuthorizationNeeded | undefined => {
    const taken = redirected;
    redirected = undefined;
    if (!taken) return undefined;
    const scope = taken.url.searchParams.get('scope') ?? undefined;
    const held = scopes(taken.tokenScope);
    const asked = scopes(scope);
    return {
      authorizationUrl: taken.url.href,
      ...(scope ? { scope } : {}),
      futile: held.size > 0 && asked.size > 0 && [...asked].every((item) => held.has(item)),
    };
  };

  const skip = options.skipIssuerMetadataValidation === true;
  const common = {
    ...(options.fetch ? { fetchFn: options.fetch } : {}),
    ...(skip ? { skipIssuerMetadataValidation: true } : {}),
  };

  return {
    provider,
    skipIssuerMetadataValidation: skip,
    async beginAuthorization(begin = {}) {
      redirected = undefined;
      const result = await auth(provider, {
        serverUrl,
        ...(begin.scope ? { scope: begin.scope } : {}),
        ...(begin.resourceMetadataUrl ? { resourceMetadataUrl: begin.resourceMetadataUrl } : {}),
        ...common,
      });
      if (result === 'AUTHORIZED') return { authorized: true };
      const authorization = needed();
      if (!authorization) throw new Error('the MCP SDK asked for a redirect without an authorization URL');
      return { authorized: false, ...authorization, futile: false };
    },
    async finishAuthorization(callback) {
      const pending = (await store.read()).pending;
      if (!pending || callback.state === undefined || !sameText(pending.state, callback.state))
        throw cyrnelError(
          'invalid_request',
          'the authorization callback matches no authorization under way (unknown or reused state)',
        );
      // One callback per state: whatever happens next, the flow is over.
      try {
        if (Date.now() - pending.startedAt > lifetime)
          throw cyrnelError('invalid_request', 'the authorization took too long: start it again');
        if (callback.error !== undefined || !callback.code)
          throw cyrnelError(
            'invalid_request',
            `the authorization server refused the authorization: ${callback.error ?? 'no code in the callback'}`,
          );
        const result = await auth(provider, {
          serverUrl,
          authorizationCode: callback.code,
          ...(callback.iss !== undefined ? { iss: callback.iss } : {}),
          ...common,
        });
        if (result !== 'AUTHORIZED') throw new Error('the authorization server did not issue tokens');
      } finally {
        await store.write({ pending: undefined });
      }
    },
    authorizationNeeded(error) {
      const chain = causes(error);
      if (
        !chain.some((cause) => cause instanceof UnauthorizedError || cause instanceof InsufficientScopeError)
      )
        return undefined;
      return needed();
    },
  };
}
