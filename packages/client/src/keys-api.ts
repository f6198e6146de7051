import {
  API_ROUTES,
  type CreatedKey,
  type CreateKeyRequest,
  type KeyListQuery,
  type KeyRecord,
  type ListResponse,
} from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/** `/keys` endpoints: API keys with roles (admin keys only). */
export interface KeysApi {
  /**
   * `POST /keys`: create a key. The answer's `key` is shown this once; only its hash is stored.
   * On a server without a bootstrap key, a key of another role while no admin key is stored is
   * 409 `first_key_not_admin` (the first key must be an admin key).
   *
   * @example
   * const { key } = await admin.keys.create({ name: 'support bot', role: 'agent' });
   * const agent = createClient({ baseUrl, apiKey: key });
   * // A key for someone who already holds one: name their principal.
   * await admin.keys.create({ name: 'phone', role: 'approver', principal: ada.id });
   */
  create(request: CreateKeyRequest, options?: RequestOptions): Promise<CreatedKey>;
  /** `GET /keys`: one page, oldest first (never the keys themselves). */
  list(query?: KeyListQuery, options?: RequestOptions): Promise<ListResponse<KeyRecord>>;
  /** Every key, page after page. */
  iterate(query?: KeyListQuery, options?: RequestOptions): AsyncGenerator<KeyRecord, void, undefined>;
  /**
   * `DELETE /keys/:id`: requests with the key fail with 401 from then on. The last admin key of a
   * server without a bootstrap key is 409 `last_admin`.
   */
  delete(id: string, options?: RequestOptions): Promise<void>;
}

const routes = API_ROUTES.keys;

/** Build the `keys` group over the route caller. */
export function createKeysApi(call: RouteCaller): KeysApi {
  const list: KeysApi['list'] = (query, options) => call(routes.list, { query }, options);
  return {
    create: (request, options) => call(routes.create, { body: request }, options),
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    delete: (id, options) => call(routes.delete, { params: { id } }, options),
  };
}
