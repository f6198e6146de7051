import type { DiscoveredService } from '@cyrnel/sdk';
import type { ServiceRecord } from '@cyrnel/sdk/api';

/** The services agents can call now (enabled and hydrated), as discovery answers them. */
export function callableServices(items: readonly ServiceRecord[]): DiscoveredService[] {
  return items
    .filter((service) => service.effectivelyEnabled)
    .map(({ id, name, description, toolCount }) => ({ id, name, description, toolCount }));
}
