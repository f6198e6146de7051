import {
  API_ROUTES,
  type InstallFromRegistryRequest,
  type InstallServiceRequest,
  type ListResponse,
  type RegistryUpdateResult,
  type ServiceDetail,
  type ServiceListQuery,
  type ServicePolicy,
  type ServiceRecord,
  type ServiceRefreshResult,
  type ServiceStats,
  type UpdateServiceRequest,
} from '@cyrnel/sdk/api';
import { paginate } from './paginate';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';
import { createSettingsApi, type SettingsApi } from './settings-api';

/**
 * What `services.install()` takes: the wire request with exactly one of `url` and
 * `definition`; a definition may also be given as a parsed document (sent as JSON text).
 */
export type InstallServiceInput = Omit<InstallServiceRequest, 'url' | 'definition'> &
  ({ url: string; definition?: never } | { definition: string | object; url?: never });

/** `/services` endpoints. */
export interface ServicesApi extends SettingsApi {
  /** `GET /services`: one page. */
  list(query?: ServiceListQuery, options?: RequestOptions): Promise<ListResponse<ServiceRecord>>;
  /** Every service matching `query`, page after page. */
  iterate(query?: ServiceListQuery, options?: RequestOptions): AsyncGenerator<ServiceRecord, void, undefined>;
  /** `GET /services/:serviceId`. */
  get(serviceId: string, options?: RequestOptions): Promise<ServiceDetail>;
  /** `POST /services`: install from a URL or a definition (201). */
  install(input: InstallServiceInput, options?: RequestOptions): Promise<ServiceDetail>;
  /** `PATCH /services/:serviceId`: a new definition by URL or inline. */
  update(serviceId: string, input: UpdateServiceRequest, options?: RequestOptions): Promise<ServiceDetail>;
  /** `DELETE /services/:serviceId` (204). */
  delete(serviceId: string, options?: RequestOptions): Promise<void>;
  /** `POST /services/:serviceId/enabled`; a hydration failure is a 502 `CyrnelHttpError`. */
  setEnabled(serviceId: string, enabled: boolean, options?: RequestOptions): Promise<ServiceDetail>;
  /**
   * `POST /services/:serviceId/observe-outputs`: whether cyrnel learns the result shapes of the
   * service's tools that declare no output schema (on by default); off forgets what was learned.
   *
   * @example
   * ```ts
   * const service = await client.services.setObserveOutputs('everything', false); // service.observeOutputs === false
   * ```
   */
  setObserveOutputs(serviceId: string, observe: boolean, options?: RequestOptions): Promise<ServiceDetail>;
  /**
   * `POST /services/install`: install from a registry (201).
   *
   * @example
   * ```ts
   * await client.services.installFromRegistry({ source: 'https://registry.example.com#petstore', version: '^1' });
   * ```
   */
  installFromRegistry(input: InstallFromRegistryRequest, options?: RequestOptions): Promise<ServiceDetail>;
  /** `POST /services/:serviceId/update`: the registry entry's latest version. */
  updateFromRegistry(serviceId: string, options?: RequestOptions): Promise<RegistryUpdateResult>;
  /**
   * `POST /services/:serviceId/refresh`: the adapter lists the service's tools again (MCP servers).
   *
   * @example
   * ```ts
   * const { changed, service } = await client.services.refresh('memory');
   * ```
   */
  refresh(serviceId: string, options?: RequestOptions): Promise<ServiceRefreshResult>;
  /**
   * `GET /services/:serviceId/stats`: the efficiency meter of code mode over the service's stored
   * runs: how many called it, their calls of its tools, the bytes those brought into the sandbox
   * and the bytes the runs returned to the model (with their ratio), wall and CPU time.
   *
   * @example
   * ```ts
   * const { runs, toolResultBytes, returnedBytes, ratio } = await client.services.stats('shop');
   * console.log(`${runs} runs read ${toolResultBytes} B from shop and returned ${returnedBytes} B (×${ratio})`);
   * ```
   */
  stats(serviceId: string, options?: RequestOptions): Promise<ServiceStats>;
  /** `GET /services/:serviceId/policy`: its policy rules (`{}` when it has none). */
  getPolicy(serviceId: string, options?: RequestOptions): Promise<ServicePolicy>;
  /**
   * `PUT /services/:serviceId/policy`: replace its policy rules (`{}` removes them); a rule naming
   * a tool the service does not have is a 404 `tool_not_found`.
   *
   * @example
   * ```ts
   * await client.services.setPolicy('github', {
   *   default: 'ask',
   *   byAnnotation: { readOnly: 'allow', destructive: 'block' },
   *   tools: { issues_create: 'allow' },
   * });
   * ```
   */
  setPolicy(serviceId: string, policy: ServicePolicy, options?: RequestOptions): Promise<ServicePolicy>;
}

const routes = API_ROUTES.services;

/** Build the `services` group over the route caller. */
export function createServicesApi(call: RouteCaller): ServicesApi {
  const list: ServicesApi['list'] = (query, options) => call(routes.list, { query }, options);
  return {
    list,
    iterate: (query = {}, options) => paginate(list, query, options),
    get: (serviceId, options) => call(routes.get, { params: { serviceId } }, options),
    install: (input, options) => {
      const { definition, ...rest } = input;
      const body: InstallServiceRequest =
        definition === undefined
          ? rest
          : { ...rest, definition: typeof definition === 'string' ? definition : JSON.stringify(definition) };
      return call(routes.install, { body }, options);
    },
    update: (serviceId, input, options) =>
      call(routes.update, { params: { serviceId }, body: input }, options),
    delete: (serviceId, options) => call(routes.delete, { params: { serviceId } }, options),
    setEnabled: (serviceId, enabled, options) =>
      call(routes.setEnabled, { params: { serviceId }, body: { enabled } }, options),
    setObserveOutputs: (serviceId, observe, options) =>
      call(routes.setObserveOutputs, { params: { serviceId }, body: { enabled: observe } }, options),
    installFromRegistry: (input, options) => call(routes.installFromRegistry, { body: input }, options),
    updateFromRegistry: (serviceId, options) =>
      call(routes.updateFromRegistry, { params: { serviceId } }, options),
    refresh: (serviceId, options) => call(routes.refresh, { params: { serviceId } }, options),
    stats: (serviceId, options) => call(routes.stats, { params: { serviceId } }, options),
    getPolicy: (serviceId, options) => call(routes.getPolicy, { params: { serviceId } }, options),
    setPolicy: (serviceId, policy, options) =>
      call(routes.setPolicy, { params: { serviceId }, body: policy }, options),
    ...createSettingsApi(call, routes, 'serviceId'),
  };
}
