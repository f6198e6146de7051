import type * as OAuth from 'oauth4webapi';
import { cyrnelError } from '../errors';
import { createGuardedFetch } from './guarded-fetch';
import { oauthFailure } from './oauth-errors';
import { loadOAuthLibrary, type OAuthLibrary } from './oauth-library';
import type {
  AuthorizationRequest,
  AuthorizationRequestInput,
  ClientCredentialsInput,
  CodeExchangeInput,
  OAuthClientOptions,
  OAuthTokens,
  RefreshInput,
  RevokeInput,
} from './oauth-types';

/** What one request to an authorization server may take where the options leave it out. */
export const OAUTH_REQUEST_LIMITS = Object.freeze({ timeoutMs: 30_000, maxBytes: 1024 * 1024 });

/** The library's view of the server, client and transport for one operation. */
interface Prepared {
  readonly as: OAuth.AuthorizationServer;
  readonly client: OAuth.Client;
  readonly auth: OAuth.ClientAuth;
  readonly http: OAuth.HttpRequestOptions<'POST', URLSearchParams>;
  /** Whether the server's issuer was given (else it is only guessed from the token URL). */
  readonly knowsIssuer: boolean;
}

/** The transport options every request of `options` gets: the guarded fetch, http allowed or not. */
export function httpOptions(
  oauth: OAuthLibrary,
  options: Pick<OAuthClientOptions, 'outbound' | 'allowHttp' | 'timeoutMs' | 'signal'>,
): OAuth.HttpRequestOptions<'GET' | 'POST', URLSearchParams> {
  const fetch = createGuardedFetch({
    outbound: options.outbound,
    timeoutMs: options.timeoutMs ?? OAUTH_REQUEST_LIMITS.timeoutMs,
    maxBytes: OAUTH_REQUEST_LIMITS.maxBytes,
  });
  return {
    [oauth.customFetch]: fetch as never,
    ...(options.allowHttp ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

function prepare(oauth: OAuthLibrary, options: OAuthClientOptions): Prepared {
  const { server, client } = options;
  const as: OAuth.AuthorizationServer = {
    issuer: server.issuer ?? new URL(server.tokenUrl).origin,
    token_endpoint: server.tokenUrl,
    ...(server.authorizationUrl ? { authorization_endpoint: server.authorizationUrl } : {}),
    ...(server.revocationUrl ? { revocation_endpoint: server.revocationUrl } : {}),
  };
  const method = client.authMethod ?? (client.clientSecret === undefined ? 'none' : 'client_secret_basic');
  if (method !== 'none' && client.clientSecret === undefined)
    throw cyrnelError('invalid_request', `the client authentication ${method} needs a client secret`);
  const secret = client.clientSecret ?? '';
  const auth =
    method === 'none'
      ? oauth.None()
      : method === 'client_secret_post'
        ? oauth.ClientSecretPost(secret)
        : oauth.ClientSecretBasic(secret);
  return {
    as,
    client: { client_id: client.clientId },
    auth,
    http: httpOptions(oauth, options) as OAuth.HttpRequestOptions<'POST', URLSearchParams>,
    knowsIssuer: server.issuer !== undefined,
  };
}

function parameters(input: {
  scopes?: readonly string[];
  resource?: string | readonly string[];
}): URLSearchParams {
  const params = new URLSearchParams();
  if (input.scopes && input.scopes.length > 0) params.set('scope', input.scopes.join(' '));
  for (const resource of typeof input.resource === 'string' ? [input.resource] : (input.resource ?? []))
    params.append('resource', resource);
  return params;
}

function tokensOf(answer: OAuth.TokenEndpointResponse, previousRefreshToken?: string): OAuthTokens {
  const refreshToken = answer.refresh_token ?? previousRefreshToken;
  return {
    accessToken: answer.access_token,
    tokenType: answer.token_type,
    ...(refreshToken ? { refreshToken } : {}),
    ...(typeof answer.expires_in === 'number'
      ? { expiresAt: new Date(Date.now() + answer.expires_in * 1000).toISOString() }
      : {}),
    ...(answer.scope ? { scope: answer.scope } : {}),
  };
}

/**
 * Start the authorization code flow: the URL to send the person's browser to, with PKCE (S256),
 * a fresh `state`, and the scopes and resource indicators asked for. Keep `codeVerifier` and
 * `state` (secret, server-side) until the browser comes back to the redirect URI.
 *
 * @example
 * ```ts
 * const options = { server: { authorizationUrl, tokenUrl }, client: { clientId, clientSecret, redirectUri }, outbound };
 * const { url, codeVerifier, state } = await buildAuthorizationRequest(options, { scopes: ['read'] });
 * // redirect the browser to url; later, at the redirect URI:
 * const tokens = await exchangeAuthorizationCode(options, { callbackUrl, codeVerifier, state });
 * ```
 */
export async function buildAuthorizationRequest(
  options: OAuthClientOptions,
  input: AuthorizationRequestInput = {},
): Promise<AuthorizationRequest> {
  const { authorizationUrl } = options.server;
  const redirectUri = input.redirectUri ?? options.client.redirectUri;
  if (!authorizationUrl)
    throw cyrnelError('invalid_request', 'the authorization server has no authorization URL');
  if (!redirectUri) throw cyrnelError('invalid_request', 'the authorization request needs a redirect URI');
  const oauth = await loadOAuthLibrary();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(authorizationUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', options.client.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  for (const [name, value] of parameters(input)) url.searchParams.append(name, value);
  for (const [name, value] of Object.entries(input.parameters ?? {})) url.searchParams.set(name, value);
  return { url: url.href, codeVerifier, state };
}

/**
 * Finish the authorization code flow: check the callback (its `state`, an `error` the server sent
 * back), then exchange the code with the PKCE verifier. A refused grant is 502
 * `upstream_unauthorized`; a callback whose state differs is 400 `invalid_request`.
 *
 * @example
 * ```ts
 * const tokens = await exchangeAuthorizationCode(options, { callbackUrl: request.url, codeVerifier, state });
 * tokens.accessToken; tokens.refreshToken; tokens.expiresAt;
 * ```
 */
export async function exchangeAuthorizationCode(
  options: OAuthClientOptions,
  input: CodeExchangeInput,
): Promise<OAuthTokens> {
  const oauth = await loadOAuthLibrary();
  const prepared = prepare(oauth, options);
  const redirectUri = input.redirectUri ?? options.client.redirectUri;
  if (!redirectUri) throw cyrnelError('invalid_request', 'the code exchange needs the redirect URI');
  const callback = new URL(input.callbackUrl);
  // Without a known issuer there is nothing to compare an RFC 9207 `iss` with.
  if (!prepared.knowsIssuer) callback.searchParams.delete('iss');
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(prepared.as, prepared.client, callback, input.state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) throw oauthFailure(error, 'the authorization');
    throw cyrnelError('invalid_request', 'the callback does not answer this authorization request (state)', {
      cause: error,
    });
  }
  try {
    const response = await oauth.authorizationCodeGrantRequest(
      prepared.as,
      prepared.client,
      prepared.auth,
      params,
      redirectUri,
      input.codeVerifier,
      { ...prepared.http, additionalParameters: parameters(input) },
    );
    return tokensOf(await oauth.processAuthorizationCodeResponse(prepared.as, prepared.client, response));
  } catch (error) {
    throw oauthFailure(error, 'the code exchange');
  }
}

/**
 * The client credentials grant: a token for the client itself, for the scopes and resource asked.
 *
 * @example
 * ```ts
 * const tokens = await clientCredentialsGrant(options, { scopes: ['read'], resource: 'https://api.example/' });
 * ```
 */
export async function clientCredentialsGrant(
  options: OAuthClientOptions,
  input: ClientCredentialsInput = {},
): Promise<OAuthTokens> {
  const oauth = await loadOAuthLibrary();
  const prepared = prepare(oauth, options);
  try {
    const response = await oauth.clientCredentialsGrantRequest(
      prepared.as,
      prepared.client,
      prepared.auth,
      parameters(input),
      prepared.http,
    );
    return tokensOf(await oauth.processClientCredentialsResponse(prepared.as, prepared.client, response));
  } catch (error) {
    throw oauthFailure(error, 'the client credentials grant');
  }
}

/**
 * Refresh an access token. The answer's `refreshToken` is the new one when the server rotated it,
 * else the one given: store what comes back. A refused refresh (revoked, expired, already used)
 * is 502 `upstream_unauthorized`.
 *
 * @example
 * ```ts
 * const next = await refreshAccessToken(options, { refreshToken: stored.refreshToken });
 * ```
 */
export async function refreshAccessToken(
  options: OAuthClientOptions,
  input: RefreshInput,
): Promise<OAuthTokens> {
  const oauth = await loadOAuthLibrary();
  const prepared = prepare(oauth, options);
  try {
    const response = await oauth.refreshTokenGrantRequest(
      prepared.as,
      prepared.client,
      prepared.auth,
      input.refreshToken,
      { ...prepared.http, additionalParameters: parameters(input) },
    );
    const answer = await oauth.processRefreshTokenResponse(prepared.as, prepared.client, response);
    return tokensOf(answer, input.refreshToken);
  } catch (error) {
    throw oauthFailure(error, 'the refresh');
  }
}

/**
 * Revoke a token (RFC 7009) at the server's revocation URL; the server answers success for a
 * token it does not know, as the RFC says.
 *
 * @example
 * ```ts
 * await revokeToken(options, { token: stored.refreshToken, tokenTypeHint: 'refresh_token' });
 * ```
 */
export async function revokeToken(options: OAuthClientOptions, input: RevokeInput): Promise<void> {
  if (!options.server.revocationUrl)
    throw cyrnelError('invalid_request', 'the authorization server has no revocation URL');
  const oauth = await loadOAuthLibrary();
  const prepared = prepare(oauth, options);
  try {
    const response = await oauth.revocationRequest(prepared.as, prepared.client, prepared.auth, input.token, {
      ...prepared.http,
      ...(input.tokenTypeHint ? { additionalParameters: { token_type_hint: input.tokenTypeHint } } : {}),
    });
    await oauth.processRevocationResponse(response);
  } catch (error) {
    throw oauthFailure(error, 'the revocation');
  }
}
