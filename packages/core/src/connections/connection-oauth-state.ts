import { createHash, timingSafeEqual } from 'node:crypto';
import { isPlainObject } from '@cyrnel/sdk';
import type { ConnectionOAuth, OAuthFlow } from '@cyrnel/sdk/api';
import type { ConnectionRow } from '../catalog/connection-storage';
import type { OAuthServer } from '../oauth/oauth-types';
import { errorMessage } from '../scoped-logger';
import type { Redactor } from '../secrets/redactor';
import type { SecretsVault } from '../secrets/secrets-vault';
import { connectionContext } from './connection-records';

/** The tokens a connection holds. Secret: sealed at rest, never answered or logged. */
export interface HeldTokens {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** ISO timestamp, when the server said. */
  readonly expiresAt?: string;
  /** When they were obtained (ISO): a call that failed with older ones may just use these. */
  readonly obtainedAt: string;
  /** The scopes granted, when the server said. */
  readonly scopes?: readonly string[];
}

/** The authorization a connection waits for: what the callback needs. Secret. */
export interface PendingAuthorization {
  readonly state: string;
  readonly codeVerifier: string;
  /** The redirect URI of the authorization request: the code exchange names it again. */
  readonly redirectUri: string;
  /** ISO timestamp after which the callback is refused. */
  readonly expiresAt: string;
}

/**
 * A connection's whole OAuth state, sealed in its row (`ConnectionRow.oauth`) with
 * {@link oauthContext}: the scheme whose secret the access token is, the flow, the authorization
 * server, the client, the scopes, the tokens and a pending authorization.
 */
export interface ConnectionOAuthState {
  readonly scheme: string;
  readonly flow: OAuthFlow;
  readonly server: OAuthServer;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scopes: readonly string[];
  /** The resource indicator (RFC 8707) every token request names. */
  readonly resource?: string;
  readonly tokens?: HeldTokens;
  readonly pending?: PendingAuthorization;
}

/**
 * The additional data a connection's OAuth state is sealed with: its secrets' context and
 * `/oauth`, so neither opens as the other, nor in another row or service.
 *
 * @example
 * ```ts
 * oauthContext('github', 'work'); // 'service:github/connection:work/oauth'
 * ```
 */
export function oauthContext(serviceId: string, name: string): string {
  return `${connectionContext(serviceId, name)}/oauth`;
}

/** Field names whose string values are secrets in an adapter's credentials (tokens, client secrets, verifiers). */
const ADAPTER_SECRET_FIELD =
  /^(access_token|refresh_token|id_token|client_secret|codeVerifier|code_verifier|state|assertion|privateKey|private_key)$/;

/**
 * The secret strings of an adapter's sealed OAuth state, by their OAuth field names, for the
 * redactor (never URLs or scopes, which the vault also remembered).
 */
export function adapterSecretStrings(value: unknown, field = '', out: string[] = [], depth = 0): string[] {
  if (depth > 16 || out.length > 256) return out;
  if (typeof value === 'string') {
    if (ADAPTER_SECRET_FIELD.test(field) && value.length >= 8) out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) adapterSecretStrings(item, field, out, depth + 1);
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) adapterSecretStrings(item, key, out, depth + 1);
  }
  return out;
}

/** The secret strings of a state: what the redactor must know (never the scheme, URLs or scopes). */
function secretsOf(state: ConnectionOAuthState): Record<string, string> {
  const out: Record<string, string> = {};
  if (state.clientSecret) out.clientSecret = state.clientSecret;
  if (state.tokens?.accessToken) out.accessToken = state.tokens.accessToken;
  if (state.tokens?.refreshToken) out.refreshToken = state.tokens.refreshToken;
  if (state.pending) {
    out.state = state.pending.state;
    out.codeVerifier = state.pending.codeVerifier;
  }
  return out;
}

/** A row's sealed OAuth column opened (either kind: the host's own or an adapter's), with its context. */
export function openSealedOAuth(
  vault: SecretsVault,
  row: ConnectionRow,
): { context: string; value: Record<string, unknown> } | undefined {
  if (!row.oauth) return undefined;
  const context = oauthContext(row.serviceId, row.name);
  return { context, value: vault.openAs(context, row.oauth).value };
}

/**
 * Log a failed authorization of `row` and answer its message, bounded (the connection's
 * `statusMessage` when it has no tokens to fall back on).
 */
export function authorizationFailed(
  logger: { warn(message: string, fields?: Record<string, unknown>): void },
  row: Pick<ConnectionRow, 'serviceId' | 'name'>,
  error: unknown,
): string {
  const message = `the authorization failed: ${errorMessage(error)}`.slice(0, 500);
  logger.warn('connection authorization failed', {
    service: row.serviceId,
    connection: row.name,
    error: message,
  });
  return message;
}

/**
 * Open a row's OAuth state (undefined without one, or when its adapter signs it in itself); its
 * secrets are known to the redactor, nothing else.
 */
export function openOAuthState(
  vault: SecretsVault,
  redactor: Redactor | undefined,
  row: ConnectionRow,
): ConnectionOAuthState | undefined {
  const opened = openSealedOAuth(vault, row);
  if (!opened) return undefined;
  const { context, value } = opened;
  // An adapter that signs in itself keeps its own state there (`openAdapterOAuth`).
  if (isPlainObject(value.adapter)) {
    redactor?.remember(context, adapterSecretStrings(value));
    return undefined;
  }
  const state = value as unknown as ConnectionOAuthState;
  // The vault remembered every string (the scheme name, scopes, URLs): only the secrets stay.
  redactor?.remember(context, secretsOf(state));
  return state;
}

/** Seal a connection's OAuth state for its row. */
export function sealOAuthState(
  vault: SecretsVault,
  redactor: Redactor | undefined,
  serviceId: string,
  name: string,
  state: ConnectionOAuthState,
) {
  const context = oauthContext(serviceId, name);
  const sealed = vault.sealAs(context, state as unknown as Record<string, unknown>);
  redactor?.remember(context, secretsOf(state));
  return sealed;
}

/** The public summary of a state: no token, no client secret, no verifier. */
export function oauthSummary(state: ConnectionOAuthState | undefined): ConnectionOAuth | null {
  if (!state) return null;
  return {
    scheme: state.scheme,
    flow: state.flow,
    clientId: state.clientId,
    pending: state.pending !== undefined,
    expiresAt: state.tokens?.expiresAt ?? null,
    scopes: [...(state.tokens?.scopes ?? state.scopes)],
  };
}

/** The SHA-256 (hex) of a state: what the row keeps to find the pending authorization by. */
export function stateHash(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/** Compare two states in constant time (for equal lengths; different lengths differ). */
export function sameState(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The secrets a connection's adapter state gets from its OAuth state: the access token under the scheme's name. */
export function tokenSecrets(state: ConnectionOAuthState | undefined): Record<string, string> {
  return state?.tokens ? { [state.scheme]: state.tokens.accessToken } : {};
}
