import type { OutboundPolicy } from '@cyrnel/sdk';
import type { CatalogStorage } from '../catalog/catalog-storage';
import type { ConnectionRow } from '../catalog/connection-storage';
import { cyrnelError, isCyrnelError } from '../errors';
import { clientCredentialsGrant, refreshAccessToken, revokeToken } from '../oauth/oauth-client';
import type { OAuthTokens } from '../oauth/oauth-types';
import { errorMessage } from '../scoped-logger';
import type { Redactor } from '../secrets/redactor';
import type { SecretsVault } from '../secrets/secrets-vault';
import { clientOptions } from './connection-oauth-server';
import {
  type ConnectionOAuthState,
  type HeldTokens,
  openOAuthState,
  sealOAuthState,
} from './connection-oauth-state';

/** How long before its expiry an access token is refreshed by the call that finds it. */
export const REFRESH_MARGIN_MS = 60_000;
/** How long one host holds a connection's refresh lease at most. */
const LEASE_MS = 30_000;
/** How long a call waits for another host's refresh before it gives up. */
const WAIT_MS = 20_000;
const WAIT_STEP_MS = 100;

/** What the refresher needs. */
export interface TokenRefresherOptions {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  readonly redactor?: Redactor;
  readonly outbound: OutboundPolicy;
  readonly now: () => Date;
  /** Who holds a lease: unique per host (and per host instance). */
  readonly holder: string;
  readonly logger: {
    warn(message: string, fields?: Record<string, unknown>): void;
    info(message: string, fields?: Record<string, unknown>): void;
  };
}

/** Whether a connection's state still needs new tokens. */
export type RefreshNeed = (state: ConnectionOAuthState) => boolean;

/** The tokens an answer of the authorization server gives a connection. */
export function heldTokens(tokens: OAuthTokens, asked: readonly string[], at: Date): HeldTokens {
  return {
    accessToken: tokens.accessToken,
    ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
    ...(tokens.expiresAt ? { expiresAt: tokens.expiresAt } : {}),
    obtainedAt: at.toISOString(),
    scopes: tokens.scope ? tokens.scope.split(' ').filter(Boolean) : [...asked],
  };
}

/**
 * Its access token expires within the margin: {@link REFRESH_MARGIN_MS}, or half its lifetime when
 * that is shorter (a token living 30 s is not renewed at every call). A token without an expiry
 * never does.
 */
export const expiringSoon =
  (now: () => Date): RefreshNeed =>
  (state) => {
    const expiresAt = state.tokens?.expiresAt;
    if (!state.tokens || expiresAt === undefined) return false;
    const expires = Date.parse(expiresAt);
    const lifetime = expires - Date.parse(state.tokens.obtainedAt);
    return expires - now().getTime() <= Math.min(REFRESH_MARGIN_MS, Math.max(0, lifetime / 2));
  };

/** Its tokens were obtained no later than `since` (epoch ms): the call that failed used them. */
export const obtainedBy =
  (since: number): RefreshNeed =>
  (state) =>
    state.tokens !== undefined && Date.parse(state.tokens.obtainedAt) <= since;

/**
 * Refreshes connections' tokens: one refresh at a time per connection, in this process (single
 * flight) and across hosts (a lease in the database: another host waits and reads the new
 * tokens). A refused refresh marks the connection `reauthorization_required`.
 */
export interface TokenRefresher {
  /** The row with tokens `need` no longer holds for (refreshed when it did); 502 `upstream_unauthorized` when refused. */
  fresh(row: ConnectionRow, need: RefreshNeed): Promise<ConnectionRow>;
  /** Revoke a deleted connection's tokens (RFC 7009), in the background: a failure is logged. */
  revoke(row: ConnectionRow): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const needsAuthorization = (row: ConnectionRow) =>
  cyrnelError(
    'upstream_unauthorized',
    `connection ${row.name} of service ${row.serviceId}: ${row.statusMessage ?? 'authorize it again'}`,
  );

/** Create the {@link TokenRefresher}. */
export function createTokenRefresher(options: TokenRefresherOptions): TokenRefresher {
  const { catalog, vault, redactor, outbound, now, holder, logger } = options;
  const flights = new Map<string, Promise<ConnectionRow>>();
  const open = (row: ConnectionRow) => openOAuthState(vault, redactor, row);

  /** New tokens for `state`: a refresh with its refresh token, or a new client credentials grant. */
  const renew = async (state: ConnectionOAuthState): Promise<HeldTokens> => {
    const at = now();
    const client = clientOptions(state, outbound);
    const scope = { scopes: state.scopes, ...(state.resource ? { resource: state.resource } : {}) };
    if (state.tokens?.refreshToken)
      return heldTokens(
        await refreshAccessToken(client, { ...scope, refreshToken: state.tokens.refreshToken }),
        state.scopes,
        at,
      );
    if (state.flow === 'clientCredentials')
      return heldTokens(await clientCredentialsGrant(client, scope), state.scopes, at);
    throw cyrnelError('upstream_unauthorized', 'the access token expired and no refresh token was issued');
  };

  /** Refresh under the lease: the row as stored after it. */
  const refreshLeased = async (row: ConnectionRow, need: RefreshNeed): Promise<ConnectionRow> => {
    const current = (await catalog.getConnection(row.serviceId, row.name)) ?? row;
    const state = open(current);
    if (!state?.tokens || !need(state)) return current;
    if (current.status === 'reauthorization_required') throw needsAuthorization(current);
    const { serviceId, name } = row;
    try {
      const tokens = await renew(state);
      await catalog.updateConnection(serviceId, name, {
        oauth: sealOAuthState(vault, redactor, serviceId, name, { ...state, tokens }),
        status: 'connected',
        statusMessage: null,
        updatedAt: now().toISOString(),
      });
      logger.info('connection tokens refreshed', { service: serviceId, connection: name });
    } catch (error) {
      if (!isCyrnelError(error) || error.reason !== 'upstream_unauthorized') throw error;
      const message = `${errorMessage(error)}; authorize the connection again`;
      await catalog.updateConnection(serviceId, name, {
        status: 'reauthorization_required',
        statusMessage: message.slice(0, 500),
        updatedAt: now().toISOString(),
      });
      logger.warn('connection refresh refused', { service: serviceId, connection: name, error: message });
      throw cyrnelError('upstream_unauthorized', `connection ${name} of service ${serviceId}: ${message}`);
    }
    return (await catalog.getConnection(serviceId, name)) ?? current;
  };

  /** Take the lease (or wait for the host that holds it to finish), then refresh when still needed. */
  const refresh = async (row: ConnectionRow, needed: RefreshNeed): Promise<ConnectionRow> => {
    // Only the tokens this call saw are renewed: once another call (or host) renewed them, their
    // successors are used as they are, even when they expire soon too.
    const seen = open(row)?.tokens?.obtainedAt;
    const need: RefreshNeed = (state) => state.tokens?.obtainedAt === seen && needed(state);
    const { serviceId, name } = row;
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const at = now();
      const until = new Date(at.getTime() + LEASE_MS).toISOString();
      if (await catalog.leaseConnection(serviceId, name, holder, until, at.toISOString())) {
        try {
          return await refreshLeased(row, need);
        } finally {
          await catalog.releaseConnectionLease(serviceId, name, holder).catch(() => undefined);
        }
      }
      // Another host refreshes: its tokens, once written, are what this call uses.
      await sleep(WAIT_STEP_MS);
      const current = await catalog.getConnection(serviceId, name);
      if (!current)
        throw cyrnelError('connection_not_found', `service ${serviceId} has no connection named ${name}`);
      const state = open(current);
      if (current.status === 'reauthorization_required') throw needsAuthorization(current);
      if (!state?.tokens || !need(state)) return current;
      if (Date.now() > deadline)
        throw cyrnelError(
          'upstream_failed',
          `another host did not finish refreshing connection ${name} of service ${serviceId}`,
        );
    }
  };

  return {
    async fresh(row, need) {
      const state = open(row);
      if (!state?.tokens || !need(state)) return row;
      const key = `${row.serviceId}\u0000${row.name}`;
      let flight = flights.get(key);
      if (!flight) {
        flight = refresh(row, need).finally(() => flights.delete(key));
        flights.set(key, flight);
      }
      return flight;
    },
    revoke(row) {
      let state: ConnectionOAuthState | undefined;
      try {
        state = open(row);
      } catch {
        return;
      }
      const token = state?.tokens?.refreshToken ?? state?.tokens?.accessToken;
      if (!state?.server.revocationUrl || !token) return;
      const hint = state.tokens?.refreshToken ? 'refresh_token' : 'access_token';
      revokeToken(clientOptions(state, outbound), { token, tokenTypeHint: hint }).catch((error: unknown) => {
        logger.warn('revoking a deleted connection’s token failed', {
          service: row.serviceId,
          connection: row.name,
          error: errorMessage(error),
        });
      });
    },
  };
}
