import {
  type AuthorizeConnectionResponse,
  type ConnectionRecord,
  CREATE_CONNECTION_BODY,
  type CreateConnectionRequest,
  DEFAULT_CONNECTION,
  type OAuthCallbackQuery,
  UPDATE_CONNECTION_BODY,
  type UpdateConnectionRequest,
} from '@cyrnel/sdk/api';
import type { ConnectionRow } from '../catalog/connection-storage';
import { cyrnelError } from '../errors';
import type { Redactor } from '../secrets/redactor';
import type { ServiceContext } from '../services/service-context';
import { validateSecrets } from '../services/validate-secrets';
import { validateBody } from '../validation/body-schema';
import { requireIdentifier } from '../validation/input';
import { adapterOAuthSummary, openAdapterOAuth } from './connection-adapter-oauth';
import type { ConnectionOAuth } from './connection-oauth';
import type { TokenRefresher } from './connection-oauth-refresh';
import { oauthSummary, openOAuthState } from './connection-oauth-state';
import {
  type ConnectionCaller,
  connectionContext,
  connectionInstanceId,
  connectionNotFound,
  connectionRecord,
  requireConnectionName,
  visibleTo,
} from './connection-records';

/**
 * A service's named credentials, as the HTTP API manages them. An admin key sees and changes every
 * connection; any other key sees its principal's own and the shared ones, and changes only its own.
 *
 * @example
 * ```ts
 * await host.connections.create('github', { name: 'alice', secrets: { token: 'ghp_...' } }, { principalId: alice, admin: false });
 * await host.connections.list('github', { principalId: alice, admin: false }); // alice's and the shared ones
 * ```
 */
export interface ConnectionsApi {
  list(serviceId: string, caller: ConnectionCaller): Promise<ConnectionRecord[]>;
  get(serviceId: string, name: string, caller: ConnectionCaller): Promise<ConnectionRecord>;
  create(serviceId: string, body: unknown, caller: ConnectionCaller): Promise<ConnectionRecord>;
  update(serviceId: string, name: string, body: unknown, caller: ConnectionCaller): Promise<ConnectionRecord>;
  delete(serviceId: string, name: string, caller: ConnectionCaller): Promise<void>;
  /**
   * Sign a connection in with OAuth (the same ownership rules as `update`): the authorization
   * code flow answers the URL to send the person's browser to, client credentials the record.
   */
  authorize(
    serviceId: string,
    name: string,
    body: unknown,
    caller: ConnectionCaller,
  ): Promise<AuthorizeConnectionResponse>;
  /** The browser came back from the authorization server: finish the authorization its state names. */
  callback(query: OAuthCallbackQuery): Promise<{ serviceId: string; name: string }>;
}

/** What the connections API needs besides the services engine's parts. */
export interface ConnectionsApiOptions {
  /** Whether a principal with this id exists (an owner must). */
  readonly principalExists: (id: string) => Promise<boolean>;
  /**
   * A connection other than `default` changed or went: what this host holds of it is hydrated
   * again from its stored row, or dropped when the row is gone.
   */
  readonly refreshInstance: (instanceId: string) => Promise<void>;
  /** OAuth sign-in; absent: `authorize` and `callback` answer 400. */
  readonly oauth?: ConnectionOAuth;
  /** Revokes a deleted connection's tokens. */
  readonly refresher?: TokenRefresher;
  readonly redactor?: Redactor;
}

/** The OAuth summary of a connection its adapter signs in, before its first sign-in. */
const NOT_SIGNED_IN = {
  scheme: 'oauth2',
  flow: 'authorizationCode',
  clientId: '',
  pending: false,
  expiresAt: null,
  scopes: [],
} as const satisfies ConnectionRecord['oauth'];

/** Create the {@link ConnectionsApi} over the services engine's parts. */
export function createConnectionsApi(ctx: ServiceContext, options: ConnectionsApiOptions): ConnectionsApi {
  const { catalog, vault, checker, now, locked, lifecycle } = ctx;
  const serviceIdOf = (value: unknown) => requireIdentifier(value, 'serviceId');
  /** Whether the service's adapter signs its connections in itself (an MCP server behind OAuth). */
  const adapterSigns = async (serviceId: string): Promise<boolean> => {
    const service = await catalog.getService(serviceId);
    const adapter = service && ctx.registry.adapter(service.adapter);
    return Boolean(service && adapter?.authorization?.signsIn(service));
  };
  /** The record of `row`; `signs`: its adapter signs it in, so it has an OAuth summary even before its first sign-in. */
  const recordOf = (row: ConnectionRow, signs: boolean): ConnectionRecord =>
    connectionRecord(
      vault,
      row,
      oauthSummary(openOAuthState(vault, options.redactor, row)) ??
        adapterOAuthSummary(openAdapterOAuth(vault, options.redactor, row)) ??
        (signs ? NOT_SIGNED_IN : null),
    );
  const record = async (row: ConnectionRow): Promise<ConnectionRecord> =>
    recordOf(row, await adapterSigns(row.serviceId));
  const noOAuth = () => cyrnelError('invalid_request', 'this server does not sign connections in with OAuth');

  /** The owner a request names, checked: an admin key names anyone (default shared), others themselves. */
  const ownerOf = async (
    requested: string | null | undefined,
    caller: ConnectionCaller,
    name: string,
  ): Promise<string | null> => {
    const owner = requested === undefined ? (caller.admin ? null : caller.principalId) : requested;
    if (!caller.admin && (owner === null || owner !== caller.principalId))
      throw cyrnelError(
        'forbidden',
        caller.principalId === null
          ? 'only an admin key manages connections of a server without principals'
          : 'a key other than an admin key makes and changes only its own principal’s connections',
      );
    if (name === DEFAULT_CONNECTION && owner !== null)
      throw cyrnelError('invalid_request', 'the default connection is shared: its owner stays null', {
        details: [{ path: 'owner', message: 'must be null for the default connection' }],
      });
    if (owner !== null && !(await options.principalExists(owner)))
      throw cyrnelError(
        'invalid_request',
        `owner ${JSON.stringify(owner)} is not the id of an existing principal`,
        {
          details: [{ path: 'owner', message: 'no principal with this id' }],
        },
      );
    return owner;
  };

  /** The visible connection, or 404 (another principal's is not told apart from a missing one). */
  const visible = async (
    serviceId: string,
    name: string,
    caller: ConnectionCaller,
  ): Promise<ConnectionRow> => {
    await lifecycle.find(serviceId);
    const row = await catalog.getConnection(serviceId, name);
    if (!row || !visibleTo(row, caller)) throw connectionNotFound(serviceId, name);
    return row;
  };

  /**
   * After a write: the `default` connection is the service's own secrets, so an enabled service is
   * hydrated again (restoring the previous row when that fails); another's adapter state, when this
   * host holds it, is hydrated again in place (or dropped with its row). Other hosts follow the
   * stored row at their next call.
   */
  const applied = async (serviceId: string, name: string, restore: () => Promise<void>): Promise<void> => {
    if (name === DEFAULT_CONNECTION) await lifecycle.rehydrate(await lifecycle.find(serviceId), restore);
    // Hydrated again from the row as stored now, or dropped when the row is gone.
    else await options.refreshInstance(connectionInstanceId(serviceId, name));
  };

  const putBack = (previous: ConnectionRow | undefined, serviceId: string, name: string) => async () => {
    if (!previous) {
      await catalog.deleteConnection(serviceId, name);
      return;
    }
    const { serviceId: _s, name: _n, createdAt: _c, ...fields } = previous;
    if (!(await catalog.updateConnection(serviceId, name, fields))) await catalog.insertConnection(previous);
  };

  return {
    async list(rawServiceId, caller) {
      const serviceId = serviceIdOf(rawServiceId);
      await lifecycle.find(serviceId);
      const rows = await catalog.listConnections(serviceId);
      const signs = await adapterSigns(serviceId);
      return rows.filter((row) => visibleTo(row, caller)).map((row) => recordOf(row, signs));
    },
    async get(rawServiceId, rawName, caller) {
      const serviceId = serviceIdOf(rawServiceId);
      return record(await visible(serviceId, String(rawName), caller));
    },
    async create(rawServiceId, rawBody, caller) {
      const serviceId = serviceIdOf(rawServiceId);
      const body = validateBody<CreateConnectionRequest>(rawBody, CREATE_CONNECTION_BODY);
      const name = requireConnectionName(body.name, 'name');
      return locked(serviceId, async () => {
        const service = await lifecycle.find(serviceId);
        const owner = await ownerOf(body.owner, caller, name);
        const secrets = await validateSecrets(checker, service.secretsSchema, body.secrets ?? {});
        const at = now().toISOString();
        const row: ConnectionRow = {
          serviceId,
          name,
          owner,
          status: 'connected',
          statusMessage: null,
          secrets: vault.sealAs(connectionContext(serviceId, name), secrets),
          oauth: null,
          createdAt: at,
          updatedAt: at,
        };
        await catalog.insertConnection(row);
        await applied(serviceId, name, putBack(undefined, serviceId, name));
        return record(row);
      });
    },
    async update(rawServiceId, rawName, rawBody, caller) {
      const serviceId = serviceIdOf(rawServiceId);
      const name = String(rawName);
      const body = validateBody<UpdateConnectionRequest>(rawBody, UPDATE_CONNECTION_BODY);
      return locked(serviceId, async () => {
        const previous = await visible(serviceId, name, caller);
        // Only an admin key gives a connection to another principal (or shares it).
        if (body.owner !== undefined && body.owner !== previous.owner && !caller.admin)
          throw cyrnelError('forbidden', 'only an admin key changes the owner of a connection');
        if (!caller.admin && previous.owner !== caller.principalId)
          throw cyrnelError('forbidden', 'a shared connection is changed by an admin key only');
        const owner = body.owner === undefined ? previous.owner : await ownerOf(body.owner, caller, name);
        const service = await lifecycle.find(serviceId);
        const secrets =
          body.secrets === undefined
            ? undefined
            : vault.sealAs(
                connectionContext(serviceId, name),
                await validateSecrets(checker, service.secretsSchema, body.secrets),
              );
        const change = {
          owner,
          ...(secrets ? { secrets, status: 'connected' as const, statusMessage: null } : {}),
          updatedAt: now().toISOString(),
        };
        if (!(await catalog.updateConnection(serviceId, name, change)))
          throw connectionNotFound(serviceId, name);
        await applied(serviceId, name, putBack(previous, serviceId, name));
        return record({ ...previous, ...change });
      });
    },
    async delete(rawServiceId, rawName, caller) {
      const serviceId = serviceIdOf(rawServiceId);
      const name = String(rawName);
      await locked(serviceId, async () => {
        const previous = await visible(serviceId, name, caller);
        if (!caller.admin && previous.owner !== caller.principalId)
          throw cyrnelError('forbidden', 'a shared connection is deleted by an admin key only');
        if (!(await catalog.deleteConnection(serviceId, name))) throw connectionNotFound(serviceId, name);
        await applied(serviceId, name, putBack(previous, serviceId, name));
        // Best effort, in the background: the delete never waits for the authorization server.
        options.refresher?.revoke(previous);
      });
    },
    async authorize(rawServiceId, rawName, body, caller) {
      const serviceId = serviceIdOf(rawServiceId);
      const name = String(rawName);
      const oauth = options.oauth;
      if (!oauth) throw noOAuth();
      const row = await visible(serviceId, name, caller);
      if (!caller.admin && row.owner !== caller.principalId)
        throw cyrnelError('forbidden', 'a shared connection is authorized by an admin key only');
      // Not under the service's lock: the sign-in waits on an authorization server (or the adapter's
      // upstream) for seconds, and the lock also orders the service's lifecycle, its other
      // connections and their hydration for tool calls. Its writes touch only this connection's
      // OAuth fields, one statement each, and fail as not found once the connection is deleted.
      const started = await oauth.authorize(await lifecycle.find(serviceId), row, body);
      if (started) return started;
      // Client credentials: signed in now; what this host holds of it takes the token.
      await locked(serviceId, () => applied(serviceId, name, async () => {}));
      return record(await visible(serviceId, name, caller));
    },
    async callback(query) {
      if (!options.oauth) throw noOAuth();
      const done = await options.oauth.callback(query);
      await locked(done.serviceId, () => applied(done.serviceId, done.name, async () => {}));
      return done;
    },
  };
}
