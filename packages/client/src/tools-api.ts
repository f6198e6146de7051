import {
  API_ROUTES,
  type CatalogVersionResponse,
  type ListResponse,
  type ToolDetail,
  type ToolListQuery,
  type ToolRecord,
} from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/** `/tools` endpoints. */
export interface ToolsApi {
  /** `GET /tools`: one page (items carry `effectivelyEnabled`, no schemas). */
  list(query?: ToolListQuery, options?: RequestOptions): Promise<ListResponse<ToolRecord>>;
  /** Every tool matching `query`, page after page. */
  iterate(query?: ToolListQuery, options?: RequestOptions): AsyncGenerator<ToolRecord, void, undefined>;
  /**
   * `GET /tools/version`: the catalog's version (compare it to know whether to read the catalog
   * again).
   */
  version(options?: RequestOptions): Promise<CatalogVersionResponse>;
  /** `GET /tools/:serviceId/:toolId`, with schemas. */
  get(serviceId: string, toolId: string, options?: RequestOptions): Promise<ToolDetail>;
  /** `GET /tools/:serviceId/:toolId/docs`: Markdown an LLM reads. */
  docs(serviceId: string, toolId: string, options?: RequestOptions): Promise<string>;
  /** `POST /tools/:serviceId/:toolId/enabled`. */
  setEnabled(
    serviceId: string,
    toolId: string,
    enabled: boolean,
    options?: RequestOptions,
  ): Promise<ToolDetail>;
}

const routes = API_ROUTES.tools;

/** Build the `tools` group over the route caller. */
export function createToolsApi(call: RouteCaller): ToolsApi {
  const list: ToolsApi['list'] = (query, options) => call(routes.list, { query }, options);
  return {
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    version: (options) => call(routes.version, {}, options),
    get: (serviceId, toolId, options) => call(routes.get, { params: { serviceId, toolId } }, options),
    docs: (serviceId, toolId, options) => call(routes.docs, { params: { serviceId, toolId } }, options),
    setEnabled: (serviceId, toolId, enabled, options) =>
      call(routes.setEnabled, { params: { serviceId, toolId }, body: { enabled } }, options),
  };
}
