import {
  API_ROUTES,
  type AuthorizeConnectionRequest,
  type AuthorizeConnectionResponse,
  type ConnectionRecord,
  type CreateConnectionRequest,
  type ListResponse,
  type OAuthCallbackQuery,
  type UpdateConnectionRequest,
} from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/**
 * `/services/:serviceId/connections` endpoints: a service's named credentials. An admin key
 * manages every connection; any other key sees its principal's own and the shared ones, and
 * manages its own.
 */
export interface ConnectionsApi {
  /**
   * `GET /services/:serviceId/connections`: every connection this key may see (one page).
   *
   * @example
   * const { items } = await client.connections.list('github'); // [{ name: 'default', owner: null, ... }, ...]
   */
  list(serviceId: string, options?: RequestOptions): Promise<ListResponse<ConnectionRecord>>;
  /**
   * `POST /services/:serviceId/connections`: 409 `connection_exists` for a name in use.
   *
   * @example
   * await alice.connections.create('github', { name: 'alice', secrets: { token: 'ghp_...' } }); // her own
   */
  create(
    serviceId: string,
    request: CreateConnectionRequest,
    options?: RequestOptions,
  ): Promise<ConnectionRecord>;
  /** `GET /services/:serviceId/connections/:name` (404 `connection_not_found`, also for another principal's). */
  get(serviceId: string, name: string, options?: RequestOptions): Promise<ConnectionRecord>;
  /** `PATCH /services/:serviceId/connections/:name`: replace its secrets, or (admin keys) give it to another owner. */
  update(
    serviceId: string,
    name: string,
    request: UpdateConnectionRequest,
    options?: RequestOptions,
  ): Promise<ConnectionRecord>;
  /** `DELETE /services/:serviceId/connections/:name` (its OAuth tokens are revoked, best effort). */
  delete(serviceId: string, name: string, options?: RequestOptions): Promise<void>;
  /**
   * `POST /services/:serviceId/connections/:name/authorize`: sign the connection in with OAuth.
   * The authorization code flow answers `{ authorizationUrl, expiresAt }` (send the person's
   * browser there; it comes back to the server's `/oauth/callback`), client credentials the
   * connection, signed in.
   *
   * @example
   * const { authorizationUrl } = await client.connections.authorize('github', 'ada', { clientId: 'cyrnel' });
   */
  authorize(
    serviceId: string,
    name: string,
    request?: AuthorizeConnectionRequest,
    options?: RequestOptions,
  ): Promise<AuthorizeConnectionResponse>;
  /**
   * `GET /oauth/callback` (no key): what the person's browser does when the authorization server
   * sends it back; here for programs that play the browser. 400 `oauth_state_invalid` for a
   * state that is wrong, used or expired.
   *
   * @example
   * await client.connections.callback({ code, state }); // 'Connected: …'
   */
  callback(query: OAuthCallbackQuery, options?: RequestOptions): Promise<string>;
}

const routes = API_ROUTES.connections;

/** Build the `connections` group over the route caller. */
export function createConnectionsApi(call: RouteCaller): ConnectionsApi {
  return {
    list: (serviceId, options) => call(routes.list, { params: { serviceId } }, options),
    create: (serviceId, request, options) =>
      call(routes.create, { params: { serviceId }, body: request }, options),
    get: (serviceId, name, options) => call(routes.get, { params: { serviceId, name } }, options),
    update: (serviceId, name, request, options) =>
      call(routes.update, { params: { serviceId, name }, body: request }, options),
    delete: (serviceId, name, options) => call(routes.delete, { params: { serviceId, name } }, options),
    authorize: (serviceId, name, request, options) =>
      call(routes.authorize, { params: { serviceId, name }, body: request ?? {} }, options),
    callback: (query, options) => call(routes.callback, { query }, options),
  };
}
