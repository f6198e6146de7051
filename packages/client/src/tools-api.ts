import type { ListResponse, ToolDetail, ToolListQuery, ToolRecord } from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { Transport } from './transport';
import { url } from './url-path';

/** `/tools` endpoints. */
export interface ToolsApi {
  /** `GET /tools`: one page (items carry `effectivelyEnabled`, no schemas). */
  list(query?: ToolListQuery, options?: RequestOptions): Promise<ListResponse<ToolRecord>>;
  /** Every tool matching `query`, page after page. */
  iterate(query?: ToolListQuery, options?: RequestOptions): AsyncGenerator<ToolRecord, void, undefined>;
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

/** Build the `tools` group over a transport. */
export function createToolsApi(transport: Transport): ToolsApi {
  const list: ToolsApi['list'] = (query, options) =>
    transport.json({ method: 'GET', path: '/tools', query, options });
  return {
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    get: (serviceId, toolId, options) =>
      transport.json({ method: 'GET', path: url`/tools/${serviceId}/${toolId}`, options }),
    docs: (serviceId, toolId, options) =>
      transport.text({ method: 'GET', path: url`/tools/${serviceId}/${toolId}/docs`, options }),
    setEnabled: (serviceId, toolId, enabled, options) =>
      transport.json({
        method: 'POST',
        path: url`/tools/${serviceId}/${toolId}/enabled`,
        body: { enabled },
        options,
      }),
  };
}
