import type { RegistryListing, RegistrySummary } from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';
import type { Transport } from './transport';

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

/** Build the `registries` group over a transport. */
export function createRegistriesApi(transport: Transport): RegistriesApi {
  return {
    list: (options) => transport.json({ method: 'GET', path: '/registries', options }),
    services: (options) => transport.json({ method: 'GET', path: '/registries/services', options }),
    modules: (options) => transport.json({ method: 'GET', path: '/registries/modules', options }),
  };
}
