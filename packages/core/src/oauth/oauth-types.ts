import type { OutboundPolicy } from '@cyrnel/sdk';

/** Where an authorization server answers (from an OpenAPI document, or `discoverAuthorizationServer`). */
export interface OAuthServer {
  /**
   * Its issuer identifier, when known (discovery gives it). Without it the `iss` of an
   * authorization response (RFC 9207) cannot be checked and is ignored.
   */
  readonly issuer?: string;
  /** The authorization endpoint (the code flow only). */
  readonly authorizationUrl?: string;
  /** The token endpoint. */
  readonly tokenUrl: string;
  /** The revocation endpoint (RFC 7009), when it has one. */
  readonly revocationUrl?: string;
}

/** The client registered at the authorization server. */
export interface OAuthClient {
  readonly clientId: string;
  /** Absent for a public client. Never logged or answered. */
  readonly clientSecret?: string;
  /** Default `client_secret_basic` with a secret, `none` without. */
  readonly authMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** The registered redirect URI of the code flow (each request may name another). */
  readonly redirectUri?: string;
}

/** What every OAuth operation takes: the server, the client and how to reach the server. */
export interface OAuthClientOptions {
  readonly server: OAuthServer;
  readonly client: OAuthClient;
  /** The host's outbound policy: every request to the server is checked by it. */
  readonly outbound: OutboundPolicy;
  /** Allow `http:` URLs (tests, local development); otherwise only `https:`. Default false. */
  readonly allowHttp?: boolean;
  /** Deadline of one request in ms. Default 30000. */
  readonly timeoutMs?: number;
  /** Aborts the request. */
  readonly signal?: AbortSignal;
}

/** Tokens an authorization server answered. Secret: store them sealed, never log them. */
export interface OAuthTokens {
  readonly accessToken: string;
  /** The refresh token, when the server issued one (after a refresh: the new one, or the one used). */
  readonly refreshToken?: string;
  /** When the access token expires (ISO 8601), when the server said (`expires_in`). */
  readonly expiresAt?: string;
  /** The granted scopes, space-separated, when the server said. */
  readonly scope?: string;
  /** `bearer` (lower case), or what the server named. */
  readonly tokenType: string;
}

/** Scopes and resource indicators (RFC 8707) of a request. */
export interface TokenRequestScope {
  readonly scopes?: readonly string[];
  /** The resource(s) the token is for; the server may then issue a token whose audience is it. */
  readonly resource?: string | readonly string[];
}

/** Input of `buildAuthorizationRequest`. */
export interface AuthorizationRequestInput extends TokenRequestScope {
  /** Default: the client's `redirectUri`. */
  readonly redirectUri?: string;
  /** Further authorization parameters (e.g. `prompt`, `audience`); they win over the computed ones. */
  readonly parameters?: Readonly<Record<string, string>>;
}

/** What `buildAuthorizationRequest` answers. Keep `codeVerifier` and `state` server-side: they are secret. */
export interface AuthorizationRequest {
  /** The URL to send the browser to. */
  readonly url: string;
  /** The PKCE verifier the code exchange needs. */
  readonly codeVerifier: string;
  /** The state the callback must carry. */
  readonly state: string;
}

/** Input of `exchangeAuthorizationCode`. */
export interface CodeExchangeInput extends TokenRequestScope {
  /** The URL the browser came back to (with `code` and `state`, or `error`). */
  readonly callbackUrl: string | URL;
  readonly codeVerifier: string;
  readonly state: string;
  /** Default: the client's `redirectUri`; must be the one of the authorization request. */
  readonly redirectUri?: string;
}

/** Input of `clientCredentialsGrant`. */
export type ClientCredentialsInput = TokenRequestScope;

/** Input of `refreshAccessToken`. */
export interface RefreshInput extends TokenRequestScope {
  readonly refreshToken: string;
}

/** Input of `revokeToken`. */
export interface RevokeInput {
  readonly token: string;
  readonly tokenTypeHint?: 'access_token' | 'refresh_token';
}

/** What `discoverAuthorizationServer` answers: the server's endpoints and what it supports. */
export interface OAuthServerMetadata extends OAuthServer {
  readonly issuer: string;
  /** Its JSON Web Key Set, for checking the tokens it signs. */
  readonly jwksUri?: string;
  readonly scopesSupported?: readonly string[];
  readonly grantTypesSupported?: readonly string[];
  readonly codeChallengeMethodsSupported?: readonly string[];
  /** The whole metadata document as the server answered it. */
  readonly metadata: Readonly<Record<string, unknown>>;
}
