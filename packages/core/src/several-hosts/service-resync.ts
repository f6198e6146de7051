import type { ServiceRow } from '../catalog/catalog-storage';
import { errorMessage } from '../scoped-logger';
import { type ServiceContext, serviceOwner } from '../services/service-context';

/** Following the service changes other hosts make on the shared catalog. */
export interface ServiceResync {
  /**
   * The catalog changed on another host: hydrate again every enabled service whose row, config
   * or secrets differ from what this host last hydrated, and drop the services that are disabled
   * or gone. Failures are logged and shown on the service.
   */
  resync(): Promise<void>;
  /** {@link ServiceResync.resync} of one service, named by the host that changed it. */
  resyncService(id: string): Promise<void>;
}

/**
 * Create the resync of services. Hydration is per host (each host sets up its own adapters), so
 * a change another host made reaches this host's adapters only through here.
 */
export function createServiceResync(ctx: ServiceContext): ServiceResync {
  const { catalog, registry, logger, health, locked, lifecycle } = ctx;
  const { hydrate, dehydrate } = lifecycle;
  // What `resync` last saw of each service (row, config, secrets), and whether it looked before.
  const synced = new Map<string, { readonly print: string; readonly adapter: string }>();
  let primed = false;

  /** Hydrate `row` again, or drop it, when its row, config or secrets changed since the last look. */
  const resyncRow = async (row: ServiceRow): Promise<void> => {
    const adapter = registry.adapter(row.adapter);
    if (!adapter) return;
    const owner = serviceOwner(row.id);
    const print = JSON.stringify([
      row.hash,
      row.enabled,
      row.updatedAt,
      (await catalog.getConfig(owner)) ?? null,
      (await catalog.getSecrets(owner)) ?? null,
    ]);
    const known = synced.get(row.id)?.print;
    if (known === print) return;
    synced.set(row.id, { print, adapter: row.adapter });
    // The first look only learns what this host hydrated itself at its start.
    if (known === undefined && primed === false) return;
    await locked(row.id, async () => {
      const fresh = await catalog.getService(row.id);
      if (fresh?.enabled) await hydrate(fresh, adapter);
      else if (fresh) await dehydrate(fresh);
    }).catch((error: unknown) => {
      logger.error('service failed to hydrate after a change on another host', {
        service: row.id,
        error: errorMessage(error),
      });
    });
  };

  /** Deleted on another host: what this host holds of it goes. */
  const forget = async (id: string): Promise<void> => {
    const known = synced.get(id);
    if (!known) return;
    synced.delete(id);
    await registry
      .adapter(known.adapter)
      ?.dehydrateService(id)
      .catch(() => undefined);
    health.set(id, undefined);
    await ctx.afterHydration?.();
  };

  return {
    async resync() {
      const rows = await catalog.listServices({});
      const present = new Set(rows.map((row) => row.id));
      for (const row of rows) await resyncRow(row);
      for (const id of [...synced.keys()]) if (!present.has(id)) await forget(id);
      primed = true;
    },
    async resyncService(id) {
      const row = await catalog.getService(id);
      if (row) await resyncRow(row);
      else await forget(id);
    },
  };
}
