import {
  API_ROUTES,
  type CreatePrincipalRequest,
  type ListResponse,
  type PrincipalListQuery,
  type PrincipalRecord,
} from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/** `/principals` endpoints: who the API keys belong to, people and automations (admin keys only). */
export interface PrincipalsApi {
  /**
   * `POST /principals`: create a principal (a `person` unless `kind` says `automation`).
   *
   * @example
   * const ada = await admin.principals.create({ name: 'Ada' });
   * const { key } = await admin.keys.create({ name: 'laptop', role: 'approver', principal: ada.id });
   */
  create(request: CreatePrincipalRequest, options?: RequestOptions): Promise<PrincipalRecord>;
  /** `GET /principals`: one page, oldest first, each with its `keyCount`. */
  list(query?: PrincipalListQuery, options?: RequestOptions): Promise<ListResponse<PrincipalRecord>>;
  /** Every principal, page after page. */
  iterate(
    query?: PrincipalListQuery,
    options?: RequestOptions,
  ): AsyncGenerator<PrincipalRecord, void, undefined>;
  /** `GET /principals/:id` (404 `principal_not_found`). */
  get(id: string, options?: RequestOptions): Promise<PrincipalRecord>;
  /** `DELETE /principals/:id`: 409 `principal_has_keys` while keys belong to it. */
  delete(id: string, options?: RequestOptions): Promise<void>;
}

const routes = API_ROUTES.principals;

/** Build the `principals` group over the route caller. */
export function createPrincipalsApi(call: RouteCaller): PrincipalsApi {
  const list: PrincipalsApi['list'] = (query, options) => call(routes.list, { query }, options);
  return {
    create: (request, options) => call(routes.create, { body: request }, options),
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    get: (id, options) => call(routes.get, { params: { id } }, options),
    delete: (id, options) => call(routes.delete, { params: { id } }, options),
  };
}
