/**
 * A service's credentials, named: each connection holds one set of the service's secrets and
 * belongs to a principal (its own) or to nobody (shared by every principal). A process uses its
 * principal's own connection to a service when there is one, otherwise the shared `default`;
 * code may name another connection its principal may use.
 */

/** How a connection stands: usable, waiting for a person to authorize again, or failed. */
export const CONNECTION_STATUSES = ['connected', 'reauthorization_required', 'error'] as const;

/** The status of a connection. */
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** The name of the shared connection that holds what used to be a service's secrets. */
export const DEFAULT_CONNECTION = 'default';

/** A connection as the API shows it: never its secrets, only which are set. */
export interface ConnectionRecord {
  /** The service it is a connection to. */
  serviceId: string;
  /** Unique within the service, e.g. `default`, `work`, `alice`. */
  name: string;
  /** The principal it belongs to, or null: shared by every principal. */
  owner: string | null;
  /** `connected`, `reauthorization_required` or `error`. */
  status: ConnectionStatus;
  /** Why it is not `connected` (never a secret), else null. */
  statusMessage: string | null;
  /** JSON pointers of the secrets set (e.g. `/token`), never their values. */
  secrets: string[];
  /** How it signs in with OAuth, when it does (never a token or the client secret); else null. */
  oauth: ConnectionOAuth | null;
  /** ISO timestamp. */
  createdAt: string;
  /** ISO timestamp of the last change. */
  updatedAt: string;
}

/** `POST /services/:serviceId/connections`. */
export interface CreateConnectionRequest {
  /** Lowercase letters, digits, `-` and `_`, starting with a letter; up to 64 characters. */
  name: string;
  /**
   * The principal it belongs to, or null for a shared one. An admin key may name any principal
   * (default: shared); any other key makes connections of its own principal only (the default).
   */
  owner?: string | null;
  /** The secrets, checked against the service's secrets schema; stored encrypted. */
  secrets?: Record<string, unknown>;
}

/** `PATCH /services/:serviceId/connections/:name`: absent fields stay. */
export interface UpdateConnectionRequest {
  /** A new owner (admin keys only; the `default` connection stays shared). */
  owner?: string | null;
  /** The whole new set of secrets (replaces the stored one). */
  secrets?: Record<string, unknown>;
}

/** The OAuth flows a connection may sign in with. */
export const OAUTH_FLOWS = ['authorizationCode', 'clientCredentials'] as const;

/** `authorizationCode` (a person signs in, with PKCE) or `clientCredentials` (the client itself). */
export type OAuthFlow = (typeof OAUTH_FLOWS)[number];

/** The public summary of a connection's OAuth state: no token, no client secret, no verifier. */
export interface ConnectionOAuth {
  /** The security scheme of the service's definition whose credential the access token is. */
  scheme: string;
  flow: OAuthFlow;
  /** The client id registered at the authorization server. */
  clientId: string;
  /** Whether the flow is waiting for the person's browser to come back (authorization code only). */
  pending: boolean;
  /** When the current access token expires (ISO timestamp), null when none is held or the server did not say. */
  expiresAt: string | null;
  /** The scopes granted (or asked for, until granted). */
  scopes: string[];
}

/**
 * `POST /services/:serviceId/connections/:name/authorize`: sign the connection in with OAuth.
 *
 * @example
 * ```json
 * { "flow": "authorizationCode", "clientId": "cyrnel", "clientSecret": "s3cret", "scopes": ["read"] }
 * ```
 */
export interface AuthorizeConnectionRequest {
  /** The service's OAuth security scheme; default: its only one. */
  scheme?: string;
  /** Default `authorizationCode` when the scheme offers it, else `clientCredentials`. */
  flow?: string;
  /**
   * The client registered at the authorization server. Required the first time; left out, the
   * connection signs in again as it did before (its client, secret, scheme, flow, scopes and
   * resource are kept).
   */
  clientId?: string;
  /** Its secret (a confidential client); stored encrypted, never shown. */
  clientSecret?: string;
  /** Default: the scopes the service's operations ask for with this scheme. */
  scopes?: string[];
  /** The resource indicator (RFC 8707) tokens are asked for, e.g. the API's base URL. */
  resource?: string;
}

/** What the authorization code flow answers: where to send the person's browser. */
export interface AuthorizationStarted {
  /** The authorization server's URL with PKCE and state; the browser comes back to `/oauth/callback`. */
  authorizationUrl: string;
  /** When the pending authorization expires (ISO timestamp). */
  expiresAt: string;
}

/** The answer of `POST .../authorize`: the code flow's URL, or the connection signed in (client credentials). */
export type AuthorizeConnectionResponse = AuthorizationStarted | ConnectionRecord;

/** `GET /oauth/callback`: what the authorization server sends the browser back with. */
export interface OAuthCallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
  iss?: string;
}
