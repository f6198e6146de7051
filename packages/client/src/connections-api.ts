import {
  API_ROUTES,
  type ConnectionRecord,
  type CreateConnectionRequest,
  type ListResponse,
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
  /** `DELETE /services/:serviceId/connections/:name`. */
  delete(serviceId: string, name: string, options?: RequestOptions): Promise<void>;
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
  };
}
