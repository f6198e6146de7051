import type { AdapterModule, OutboundPolicy, ServiceState } from '@cyrnel/sdk';
import {
  AUTHORIZE_CONNECTION_BODY,
  type AuthorizationStarted,
  type AuthorizeConnectionRequest,
  type OAuthCallbackQuery,
} from '@cyrnel/sdk/api';
import type { CatalogStorage, ServiceRow } from '../catalog/catalog-storage';
import type { ConnectionRow } from '../catalog/connection-storage';
import { cyrnelError } from '../errors';
import {
  buildAuthorizationRequest,
  clientCredentialsGrant,
  exchangeAuthorizationCode,
} from '../oauth/oauth-client';
import type { Redactor } from '../secrets/redactor';
import type { SecretsVault } from '../secrets/secrets-vault';
import { validateBody } from '../validation/body-schema';
import {
  type AdapterOAuthOptions,
  beginAdapterAuthorization,
  finishAdapterAuthorization,
} from './connection-adapter-oauth';
import { heldTokens } from './connection-oauth-refresh';
import { clientOptions, resolveScheme } from './connection-oauth-server';
import {
  authorizationFailed,
  type ConnectionOAuthState,
  openOAuthState,
  sameState,
  sealOAuthState,
  stateHash,
} from './connection-oauth-state';
import { connectionNotFound } from './connection-records';

/** How long a pending authorization waits for the person's browser. */
export const PENDING_AUTHORIZATION_MS = 10 * 60_000;
/** Most scopes a request may ask for. */
const MAX_SCOPES = 100;

/** Options of {@link createConnectionOAuth}. */
export interface ConnectionOAuthOptions {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  readonly redactor?: Redactor;
  /** Where the host may connect: every request to an authorization server is checked by it. */
  readonly outbound: OutboundPolicy;
  /** `<public URL>/oauth/callback`: where the authorization server sends the browser back. */
  readonly redirectUri: () => string | undefined;
  readonly now: () => Date;
  readonly logger: { warn(message: string, fields?: Record<string, unknown>): void };
  /** The https URL of the host's client ID metadata document (adapters that sign in themselves). */
  readonly clientMetadataUrl?: () => string | undefined;
  /** The adapter of a service when it signs the service's connections in itself (MCP servers behind OAuth). */
  readonly signingAdapter?: (service: ServiceRow) => AdapterModule | undefined;
  /** A connection's adapter state, built from its row (not hydrated). */
  readonly connectionState?: (service: ServiceRow, row: ConnectionRow) => Promise<ServiceState>;
}

/**
 * Signing connections in with OAuth: the authorization code flow with PKCE (a URL for the
 * person's browser, finished by the callback), and client credentials (tokens at once). Both
 * store the connection's OAuth state sealed in its row; the answers never carry a token.
 *
 * @example
 * ```ts
 * const { authorizationUrl } = await oauth.authorize(service, row, { clientId: 'cyrnel' });
 * // the browser comes back to /oauth/callback?code=…&state=…
 * const { serviceId, name } = await oauth.callback({ code, state });
 * ```
 */
export interface ConnectionOAuth {
  /** Start (code flow) or complete (client credentials) the sign-in of `row`; `undefined` for client credentials. */
  authorize(
    service: ServiceRow,
    row: ConnectionRow,
    body: unknown,
  ): Promise<AuthorizationStarted | undefined>;
  /** Finish the authorization a callback's state names (400 `oauth_state_invalid` for none). */
  callback(query: OAuthCallbackQuery): Promise<{ serviceId: string; name: string }>;
}

const invalidState = () =>
  cyrnelError(
    'oauth_state_invalid',
    'this authorization link is not pending: its state is wrong, was already used or expired; start the authorization again',
  );

function scopesOf(value: unknown, fallback: readonly string[]): readonly string[] {
  if (value === undefined) return fallback;
  if (
    !Array.isArray(value) ||
    value.length > MAX_SCOPES ||
    !value.every((scope) => typeof scope === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/.test(scope))
  )
    throw cyrnelError('invalid_request', 'scopes must be a list of OAuth scope tokens', {
      details: [{ path: 'scopes', message: `at most ${MAX_SCOPES} scope tokens` }],
    });
  return value as string[];
}

/** Create the {@link ConnectionOAuth}. */
export function createConnectionOAuth(options: ConnectionOAuthOptions): ConnectionOAuth {
  const { catalog, vault, redactor, outbound, now, logger } = options;
  const seal = (row: ConnectionRow, state: ConnectionOAuthState) =>
    sealOAuthState(vault, redactor, row.serviceId, row.name, state);
  const adapterOptions: AdapterOAuthOptions & { logger: ConnectionOAuthOptions['logger'] } = {
    catalog,
    vault,
    ...(redactor ? { redactor } : {}),
    now,
    logger,
    redirectUri: options.redirectUri,
    ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
  };
  /** Write a sign-in's change of `row`; 404 when the connection was deleted while it signed in. */
  const written = async (row: ConnectionRow, change: Parameters<CatalogStorage['updateConnection']>[2]) => {
    if (!(await catalog.updateConnection(row.serviceId, row.name, change)))
      throw connectionNotFound(row.serviceId, row.name);
  };
  /** The adapter that signs `row`'s service in, with the connection's state, for a callback. */
  const signInOf = async (row: ConnectionRow) => {
    const service = await catalog.getService(row.serviceId);
    const adapter = service && options.signingAdapter?.(service);
    const stateOf = options.connectionState;
    if (!service || !adapter || !stateOf) return undefined;
    return { adapter, service, state: () => stateOf(service, row) };
  };

  return {
    async authorize(service, row, rawBody) {
      const given = validateBody<AuthorizeConnectionRequest>(rawBody ?? {}, AUTHORIZE_CONNECTION_BODY);
      const signing = options.signingAdapter?.(service);
      if (signing && options.connectionState) {
        const extra = Object.keys(given).filter((field) => field !== 'scopes');
        if (extra.length > 0)
          throw cyrnelError(
            'invalid_request',
            `service ${service.id} signs in through its adapter, which finds the authorization server itself: only scopes may be given`,
            { details: extra.map((path) => ({ path, message: 'not used by this service' })) },
          );
        const stateOf = options.connectionState;
        return beginAdapterAuthorization(
          adapterOptions,
          { adapter: signing, service, row, state: () => stateOf(service, row) },
          given.scopes === undefined ? undefined : scopesOf(given.scopes, []),
        );
      }
      // Signing in again ("Connect" on a connection that needs it): as before, unless the body says otherwise.
      const before = openOAuthState(vault, redactor, row);
      const body: AuthorizeConnectionRequest = before
        ? {
            scheme: before.scheme,
            flow: before.flow,
            clientId: before.clientId,
            // Another client brings its own secret (or none).
            ...(before.clientSecret === undefined || (given.clientId ?? before.clientId) !== before.clientId
              ? {}
              : { clientSecret: before.clientSecret }),
            scopes: [...before.scopes],
            ...(before.resource === undefined ? {} : { resource: before.resource }),
            ...given,
          }
        : given;
      const clientId = body.clientId;
      if (clientId === undefined)
        throw cyrnelError(
          'invalid_request',
          'clientId is required to sign a connection in for the first time',
          {
            details: [{ path: 'clientId', message: 'required' }],
          },
        );
      if (body.resource !== undefined && !URL.canParse(body.resource))
        throw cyrnelError('invalid_request', 'resource must be an absolute URL', {
          details: [{ path: 'resource', message: 'an absolute URL' }],
        });
      const resolved = await resolveScheme(
        service,
        {
          ...(body.scheme === undefined ? {} : { scheme: body.scheme }),
          ...(body.flow === undefined ? {} : { flow: body.flow }),
        },
        { outbound },
      );
      const base: ConnectionOAuthState = {
        scheme: resolved.scheme,
        flow: resolved.flow,
        server: resolved.server,
        clientId,
        ...(body.clientSecret === undefined ? {} : { clientSecret: body.clientSecret }),
        scopes: scopesOf(body.scopes, resolved.scopes),
        ...(body.resource === undefined ? {} : { resource: body.resource }),
      };
      const scope = { scopes: base.scopes, ...(base.resource ? { resource: base.resource } : {}) };
      if (resolved.flow === 'clientCredentials') {
        const at = now();
        const tokens = await clientCredentialsGrant(clientOptions(base, outbound), scope);
        await written(row, {
          oauth: seal(row, { ...base, tokens: heldTokens(tokens, base.scopes, at) }),
          pendingState: null,
          status: 'connected',
          statusMessage: null,
          updatedAt: now().toISOString(),
        });
        return undefined;
      }
      const redirectUri = options.redirectUri();
      if (!redirectUri)
        throw cyrnelError(
          'invalid_request',
          'the server does not know its public URL for the OAuth callback',
        );
      const request = await buildAuthorizationRequest(clientOptions(base, outbound, redirectUri), scope);
      const expiresAt = new Date(now().getTime() + PENDING_AUTHORIZATION_MS).toISOString();
      // Tokens already held stay usable until the person finishes.
      const tokens = before?.tokens && before.scheme === base.scheme ? { tokens: before.tokens } : {};
      await written(row, {
        oauth: seal(row, {
          ...base,
          ...tokens,
          pending: { state: request.state, codeVerifier: request.codeVerifier, redirectUri, expiresAt },
        }),
        pendingState: stateHash(request.state),
        ...(tokens.tokens
          ? {}
          : {
              status: 'reauthorization_required' as const,
              statusMessage: 'waiting for a person to finish the authorization at the authorization server',
            }),
        updatedAt: now().toISOString(),
      });
      return { authorizationUrl: request.url, expiresAt };
    },

    async callback(query) {
      const given = query.state;
      if (typeof given !== 'string' || given === '' || given.length > 1000) throw invalidState();
      const hash = stateHash(given);
      const row = await catalog.findPendingAuthorization(hash);
      if (
        row &&
        (await finishAdapterAuthorization(adapterOptions, row, { ...query }, signInOf, invalidState))
      )
        return { serviceId: row.serviceId, name: row.name };
      const state = row && openOAuthState(vault, redactor, row);
      const pending = state?.pending;
      if (!row || !state || !pending || !sameState(pending.state, given)) throw invalidState();
      // Used once, on whichever host the browser reaches: only one caller clears the hash.
      if (!(await catalog.claimPendingAuthorization(row.serviceId, row.name, hash))) throw invalidState();
      const { pending: _used, ...rest } = state;
      const keep = async (change: { status?: 'error'; statusMessage?: string }) =>
        catalog.updateConnection(row.serviceId, row.name, {
          oauth: seal(row, rest),
          ...change,
          updatedAt: now().toISOString(),
        });
      if (Date.parse(pending.expiresAt) <= now().getTime()) {
        await keep({});
        throw invalidState();
      }
      const callbackUrl = new URL(pending.redirectUri);
      for (const name of ['code', 'state', 'error', 'error_description', 'iss'] as const) {
        const value = query[name];
        if (typeof value === 'string') callbackUrl.searchParams.set(name, value);
      }
      const at = now();
      try {
        const tokens = await exchangeAuthorizationCode(clientOptions(state, outbound, pending.redirectUri), {
          callbackUrl,
          codeVerifier: pending.codeVerifier,
          state: pending.state,
          redirectUri: pending.redirectUri,
          ...(state.resource ? { resource: state.resource } : {}),
        });
        await catalog.updateConnection(row.serviceId, row.name, {
          oauth: seal(row, { ...rest, tokens: heldTokens(tokens, state.scopes, at) }),
          status: 'connected',
          statusMessage: null,
          updatedAt: now().toISOString(),
        });
      } catch (error) {
        const message = authorizationFailed(logger, row, error);
        await keep(rest.tokens ? {} : { status: 'error', statusMessage: message });
        throw error;
      }
      return { serviceId: row.serviceId, name: row.name };
    },
  };
}
