import type { AdapterModule } from '@cyrnel/sdk';
import { errorMessage } from '../scoped-logger';
import type { ServiceContext } from './service-context';

/**
 * Hydrate every enabled service of a freshly set-up adapter, first regenerating the services an
 * earlier version of it generated (failures are logged and shown on the service).
 */
export function createHydrateAdapter(
  ctx: ServiceContext,
): (adapterId: string, adapter: AdapterModule) => Promise<void> {
  const { catalog, registry, logger, locked, lifecycle } = ctx;
  const { hydrate, regenerate } = lifecycle;
  return async (adapterId, adapter) => {
    const version = registry.adapterVersion(adapterId) ?? null;
    // Services an earlier version generated are regenerated first, enabled or not: their tools
    // are what that version made of the text, which the new one may read differently.
    for (const { id } of await catalog.listServices({ adapter: adapterId })) {
      await locked(id, async () => {
        const row = await catalog.getService(id);
        if (row && version !== null && row.adapterVersion !== version) await regenerate(row, adapter);
      }).catch((error: unknown) => {
        logger.error('service failed to regenerate on adapter activation', {
          service: id,
          error: errorMessage(error),
        });
      });
    }
    for (const { id } of await catalog.listServices({ adapter: adapterId, enabled: true })) {
      // Under the service's lock, on a fresh row: reading secrets may re-encrypt them, which
      // must not overwrite a concurrent patch, and a service disabled meanwhile stays dropped.
      // A failure stays visible (the service's `error`, not effectively enabled) until a
      // hydration succeeds or the service is disabled.
      await locked(id, async () => {
        const row = await catalog.getService(id);
        if (row?.enabled) await hydrate(row, adapter);
      }).catch((error: unknown) => {
        logger.error('service failed to hydrate on adapter activation', {
          service: id,
          error: errorMessage(error),
        });
      });
    }
  };
}
