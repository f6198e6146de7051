import { API_ROUTES, type RegistryListing, type RegistrySummary } from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/** `/registries` endpoints: the server's configured registries, read when asked. */
export interface RegistriesApi {
  /** `GET /registries`. */
  list(options?: RequestOptions): Promise<{ items: RegistrySummary[] }>;
  /**
   * `GET /registries/services`: every service the registries offer.
   *
   * @example
   * ```ts
   * const { items } = await client.registries.services();
   * await client.services.installFromRegistry({ source: `${items[0].registry}#${items[0].name}` });
   * ```
   */
  services(options?: RequestOptions): Promise<{ items: RegistryListing[] }>;
  /** `GET /registries/modules`: every module the registries offer. */
  modules(options?: RequestOptions): Promise<{ items: RegistryListing[] }>;
}

const routes = API_ROUTES.registries;

/** Build the `registries` group over the route caller. */
export function createRegistriesApi(call: RouteCaller): RegistriesApi {
  return {
    list: (options) => call(routes.list, {}, options),
    services: (options) => call(routes.services, {}, options),
    modules: (options) => call(routes.modules, {}, options),
  };
}
