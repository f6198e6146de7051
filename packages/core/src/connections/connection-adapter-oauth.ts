import { randomBytes } from 'node:crypto';
import {
  type AdapterCredentials,
  type AdapterModule,
  type AuthorizationCallbackQuery,
  type CredentialStore,
  isPlainObject,
  type ServiceState,
} from '@cyrnel/sdk';
import type { AuthorizationStarted, ConnectionOAuth } from '@cyrnel/sdk/api';
import type { CatalogStorage, ServiceRow } from '../catalog/catalog-storage';
import type { ConnectionRow } from '../catalog/connection-storage';
import { cyrnelError } from '../errors';
import type { Redactor } from '../secrets/redactor';
import type { SecretsVault } from '../secrets/secrets-vault';
import {
  adapterSecretStrings,
  authorizationFailed,
  oauthContext,
  openSealedOAuth,
  sameState,
  stateHash,
} from './connection-oauth-state';
import { connectionNotFound, connectionOfInstance } from './connection-records';

/**
 * The OAuth state of a connection its adapter signs in itself (an MCP server's), sealed in the
 * row's `oauth` column like the host's own: what the adapter keeps (opaque to the host), and the
 * authorization the host waits for the callback of. Told apart from the host's own by `adapter`.
 */
export interface AdapterOAuthState {
  readonly adapter: Record<string, unknown>;
  readonly pending?: { readonly state: string; readonly expiresAt: string };
}

/** True when a sealed OAuth state is an adapter's (see {@link AdapterOAuthState}). */
export function isAdapterOAuth(value: Record<string, unknown>): boolean {
  return isPlainObject(value.adapter);
}

/** Options of {@link createAdapterCredentials} and the sign-in of adapter connections. */
export interface AdapterOAuthOptions {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  readonly redactor?: Redactor;
  readonly now: () => Date;
  /** `<public URL>/oauth/callback`, when the server knows its public URL. */
  readonly redirectUri: () => string | undefined;
  /** The https URL of the host's client ID metadata document, when it has one. */
  readonly clientMetadataUrl?: () => string | undefined;
}

/** Open a row's adapter OAuth state: undefined when it has none (or the host's own). */
export function openAdapterOAuth(
  vault: SecretsVault,
  redactor: Redactor | undefined,
  row: ConnectionRow,
): AdapterOAuthState | undefined {
  const opened = openSealedOAuth(vault, row);
  if (!opened || !isAdapterOAuth(opened.value)) return undefined;
  const { context, value } = opened;
  const state = value as unknown as AdapterOAuthState;
  // The vault remembered every string (URLs, scopes too): only the secrets stay.
  redactor?.remember(context, adapterSecretStrings(state));
  return state;
}

function sealAdapterOAuth(
  vault: SecretsVault,
  redactor: Redactor | undefined,
  row: Pick<ConnectionRow, 'serviceId' | 'name'>,
  state: AdapterOAuthState,
) {
  const context = oauthContext(row.serviceId, row.name);
  const sealed = vault.sealAs(context, state as unknown as Record<string, unknown>);
  redactor?.remember(context, adapterSecretStrings(state));
  return sealed;
}

/**
 * The host's side of adapters that sign in themselves: each connection's credentials sealed in its
 * row (read from the row each time, so a write on one host is seen on every other), and the
 * connection marked when a call finds the server wants a person to authorize again.
 *
 * @example
 * ```ts
 * const credentials = createAdapterCredentials({ catalog, vault, now, redirectUri: () => url });
 * await credentials.store('linear@alice').write({ tokens: { access_token: 'at', token_type: 'Bearer' } });
 * ```
 */
export function createAdapterCredentials(options: AdapterOAuthOptions): AdapterCredentials {
  const { catalog, vault, redactor } = options;
  const rowOf = async (instanceId: string): Promise<ConnectionRow> => {
    const { serviceId, name } = connectionOfInstance(instanceId);
    const row = await catalog.getConnection(serviceId, name);
    if (!row)
      throw cyrnelError('connection_not_found', `service ${serviceId} has no connection named ${name}`);
    return row;
  };
  return {
    store(instanceId): CredentialStore {
      return {
        async read() {
          const row = await rowOf(instanceId);
          return structuredClone(openAdapterOAuth(vault, redactor, row)?.adapter ?? {});
        },
        async write(patch) {
          const row = await rowOf(instanceId);
          const before = openAdapterOAuth(vault, redactor, row);
          const adapter: Record<string, unknown> = { ...(before?.adapter ?? {}) };
          for (const [key, value] of Object.entries(patch)) {
            if (value === undefined) delete adapter[key];
            else adapter[key] = structuredClone(value);
          }
          // Not a new version of the connection (its `updatedAt` stays): what holds it needs no hydrating again.
          await catalog.updateConnection(row.serviceId, row.name, {
            oauth: sealAdapterOAuth(vault, redactor, row, { ...(before ?? {}), adapter }),
            updatedAt: row.updatedAt,
          });
        },
      };
    },
    async needsAuthorization(instanceId, message) {
      const row = await rowOf(instanceId);
      await catalog.updateConnection(row.serviceId, row.name, {
        status: 'reauthorization_required',
        statusMessage: message.slice(0, 500),
        updatedAt: row.updatedAt,
      });
    },
    get redirectUrl() {
      return options.redirectUri();
    },
    get clientMetadataUrl() {
      return options.clientMetadataUrl?.();
    },
    clientName: 'cyrnel',
  };
}

/** How long a pending authorization waits for the person's browser. */
const PENDING_MS = 10 * 60_000;

/** What the sign-in of an adapter's connection needs besides {@link AdapterOAuthOptions}. */
export interface AdapterSignIn {
  readonly adapter: AdapterModule;
  readonly service: ServiceRow;
  readonly row: ConnectionRow;
  /** The connection's adapter state (not hydrated: built from its row and the service). */
  readonly state: () => Promise<ServiceState>;
}

/**
 * Start signing an adapter's connection in: a fresh `state`, kept (hashed) in the row so the
 * callback finds it, and the adapter's authorization URL; `undefined` when it signed in without
 * a person.
 */
export async function beginAdapterAuthorization(
  options: AdapterOAuthOptions,
  signIn: AdapterSignIn,
  scopes: readonly string[] | undefined,
): Promise<AuthorizationStarted | undefined> {
  const { catalog, vault, redactor, now } = options;
  const { adapter, row } = signIn;
  const authorization = adapter.authorization;
  if (!authorization) throw new Error('the adapter does not sign connections in');
  const before = openAdapterOAuth(vault, redactor, row);
  const state = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now().getTime() + PENDING_MS).toISOString();
  // The pending state first: the adapter writes its own part (the verifier) beside it.
  const pending = await catalog.updateConnection(row.serviceId, row.name, {
    oauth: sealAdapterOAuth(vault, redactor, row, {
      adapter: before?.adapter ?? {},
      pending: { state, expiresAt },
    }),
    pendingState: stateHash(state),
    updatedAt: row.updatedAt,
  });
  if (!pending) throw connectionNotFound(row.serviceId, row.name);
  const begun = await authorization.begin(await signIn.state(), { state, ...(scopes ? { scopes } : {}) });
  if ('authorized' in begun) {
    const after = await catalog.getConnection(row.serviceId, row.name);
    const kept = after && openAdapterOAuth(vault, redactor, after);
    await catalog.updateConnection(row.serviceId, row.name, {
      oauth: sealAdapterOAuth(vault, redactor, row, { adapter: kept?.adapter ?? {} }),
      pendingState: null,
      status: 'connected',
      statusMessage: null,
      updatedAt: now().toISOString(),
    });
    return undefined;
  }
  // Never signed in: the connection waits for the person. Signed in before: it stays usable meanwhile.
  if (!before)
    await catalog.updateConnection(row.serviceId, row.name, {
      status: 'reauthorization_required',
      statusMessage: 'waiting for a person to finish the authorization at the authorization server',
      updatedAt: row.updatedAt,
    });
  return { authorizationUrl: begun.authorizationUrl, expiresAt };
}

/**
 * Finish the authorization of an adapter's connection the callback's state names (checked, used
 * once, not expired). `false` when `row` is not an adapter's (the host's own flow takes it).
 */
export async function finishAdapterAuthorization(
  options: AdapterOAuthOptions & {
    readonly logger: { warn(message: string, fields?: Record<string, unknown>): void };
  },
  row: ConnectionRow,
  given: Readonly<Record<string, unknown>>,
  signIn: (row: ConnectionRow) => Promise<Omit<AdapterSignIn, 'row'> | undefined>,
  invalidState: () => Error,
): Promise<boolean> {
  const { catalog, vault, redactor, now, logger } = options;
  const opened = openAdapterOAuth(vault, redactor, row);
  if (!opened) return false;
  const query: Record<string, string> = {};
  for (const name of ['code', 'state', 'iss', 'error', 'error_description'] as const) {
    const value = given[name];
    if (typeof value === 'string') query[name] = value;
  }
  const state = query.state ?? '';
  const pending = opened.pending;
  if (!pending || !sameState(pending.state, state)) throw invalidState();
  if (!(await catalog.claimPendingAuthorization(row.serviceId, row.name, stateHash(state))))
    throw invalidState();
  const clear = async (change: {
    status?: 'error' | 'connected';
    statusMessage?: string | null;
    updatedAt?: string;
  }) => {
    const current = await catalog.getConnection(row.serviceId, row.name);
    const kept = current && openAdapterOAuth(vault, redactor, current);
    await catalog.updateConnection(row.serviceId, row.name, {
      oauth: sealAdapterOAuth(vault, redactor, row, { adapter: kept?.adapter ?? {} }),
      updatedAt: current?.updatedAt ?? row.updatedAt,
      ...change,
    });
  };
  if (Date.parse(pending.expiresAt) <= now().getTime()) {
    await clear({});
    throw invalidState();
  }
  const found = await signIn(row);
  if (!found?.adapter.authorization) {
    await clear({});
    throw cyrnelError(
      'invalid_request',
      `the adapter of service ${row.serviceId} no longer signs connections in`,
    );
  }
  try {
    await found.adapter.authorization.finish(await found.state(), query as AuthorizationCallbackQuery);
  } catch (error) {
    const message = authorizationFailed(logger, row, error);
    await clear(row.status === 'connected' ? {} : { status: 'error', statusMessage: message });
    throw error;
  }
  await clear({ status: 'connected', statusMessage: null, updatedAt: now().toISOString() });
  return true;
}

/**
 * The public summary of an adapter's connection: the flow, the client and the tokens' scope and
 * expiry, read by their OAuth names (RFC 6749 and RFC 7591: `tokens.scope`, `tokens.expires_in`,
 * `client.client_id`) and `tokensObtainedAt` (epoch seconds), never a token.
 */
export function adapterOAuthSummary(state: AdapterOAuthState | undefined): ConnectionOAuth | null {
  if (!state) return null;
  const tokens = isPlainObject(state.adapter.tokens) ? state.adapter.tokens : {};
  const client = isPlainObject(state.adapter.client) ? state.adapter.client : {};
  const obtained =
    typeof state.adapter.tokensObtainedAt === 'number' ? state.adapter.tokensObtainedAt : undefined;
  const lifetime = typeof tokens.expires_in === 'number' ? tokens.expires_in : undefined;
  const expiresAt =
    obtained !== undefined && lifetime !== undefined
      ? new Date(obtained * 1000 + lifetime * 1000)
      : undefined;
  return {
    scheme: 'oauth2',
    flow:
      state.adapter.grant === undefined || state.adapter.grant === 'authorization_code'
        ? 'authorizationCode'
        : 'clientCredentials',
    clientId: typeof client.client_id === 'string' ? client.client_id : '',
    pending: state.pending !== undefined,
    expiresAt: expiresAt && !Number.isNaN(expiresAt.getTime()) ? expiresAt.toISOString() : null,
    scopes: typeof tokens.scope === 'string' ? tokens.scope.split(' ').filter(Boolean) : [],
  };
}
