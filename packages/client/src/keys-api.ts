import type { CreatedKey, CreateKeyRequest, KeyListQuery, KeyRecord, ListResponse } from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { Transport } from './transport';
import { url } from './url-path';

/** `/keys` endpoints: API keys with roles (admin keys only). */
export interface KeysApi {
  /**
   * `POST /keys`: create a key. The answer's `key` is shown this once; only its hash is stored.
   *
   * @example
   * const { key } = await admin.keys.create({ name: 'support bot', role: 'agent' });
   * const agent = createClient({ baseUrl, apiKey: key });
   */
  create(request: CreateKeyRequest, options?: RequestOptions): Promise<CreatedKey>;
  /** `GET /keys`: one page, oldest first (never the keys themselves). */
  list(query?: KeyListQuery, options?: RequestOptions): Promise<ListResponse<KeyRecord>>;
  /** Every key, page after page. */
  iterate(query?: KeyListQuery, options?: RequestOptions): AsyncGenerator<KeyRecord, void, undefined>;
  /** `DELETE /keys/:id`: requests with the key fail with 401 from then on. */
  delete(id: string, options?: RequestOptions): Promise<void>;
}

/** Build the `keys` group over a transport. */
export function createKeysApi(transport: Transport): KeysApi {
  const list: KeysApi['list'] = (query, options) =>
    transport.json({ method: 'GET', path: '/keys', query, options });
  return {
    create: (request, options) => transport.json({ method: 'POST', path: '/keys', body: request, options }),
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    delete: (id, options) => transport.empty({ method: 'DELETE', path: url`/keys/${id}`, options }),
  };
}
