import { efficiencyRatio, type ServiceStats } from '@cyrnel/sdk/api';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { cyrnelError } from '../errors';
import { requireIdentifier } from '../validation/input';
import type { ServiceStatsStorage } from './stats-storage';

/** What {@link createServiceStats} reads. */
export interface ServiceStatsOptions {
  /** Where the services are (an unknown one is a 404). */
  readonly catalog: Pick<CatalogStorage, 'getService'>;
  /** The process storage, which sums the stored runs. */
  readonly storage: ServiceStatsStorage;
}

/**
 * `GET /services/:serviceId/stats`: the efficiency meter over the service's stored runs, summed
 * by the storage in one read (so every host sharing the database answers the same), with the
 * ratio of bytes read to bytes returned. 400 for a malformed id, 404 `service_not_found`.
 *
 * @example
 * ```ts
 * const stats = createServiceStats({ catalog, storage: store.processes });
 * await stats('shop'); // { serviceId: 'shop', runs: 3, toolCalls: 6, ..., ratio: 8.28 }
 * ```
 */
export function createServiceStats(
  options: ServiceStatsOptions,
): (serviceId: string) => Promise<ServiceStats> {
  return async (rawId) => {
    const serviceId = requireIdentifier(rawId, 'serviceId');
    if (!(await options.catalog.getService(serviceId)))
      throw cyrnelError('service_not_found', `service ${serviceId} not found`);
    const usage = await options.storage.serviceStats(serviceId);
    return { serviceId, ...usage, ratio: efficiencyRatio(usage) };
  };
}
