import type { ServiceRow } from '../catalog/catalog-storage';
import { cyrnelError, isCyrnelError } from '../errors';
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
  /**
   * Make service `id`, enabled in the store, held by its adapter here now, not when the change
   * reaches this host (within about a second): a call for it on this host right after another
   * host enabled it waits for this instead of failing. Resolves at once when it is held (or is
   * not enabled, or its adapter is not active here: the gate answers those); a failed hydration
   * rejects with `service_unavailable`, as does one not done within `timeoutMs`.
   */
  activate(id: string, timeoutMs: number): Promise<void>;
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

  /** What decides whether a service must be hydrated again: its row, config, secrets and connections. */
  const printOf = async (row: ServiceRow): Promise<string> => {
    const owner = serviceOwner(row.id);
    return JSON.stringify([
      row.hash,
      row.enabled,
      row.updatedAt,
      (await catalog.getConfig(owner)) ?? null,
      (await catalog.getSecrets(owner)) ?? null,
      // A connection changed, given away or deleted elsewhere: what this host hydrated of it goes.
      (await catalog.listConnections(row.id)).map((c) => [c.name, c.owner, c.updatedAt]),
    ]);
  };

  /** Hydrate `row` again, or drop it, when its row, config or secrets changed since the last look. */
  const resyncRow = async (row: ServiceRow): Promise<void> => {
    const adapter = registry.adapter(row.adapter);
    if (!adapter) return;
    const print = await printOf(row);
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
    health.setHydrated(id, undefined);
    await ctx.afterHydration?.();
  };

  /** Hydrate `id` here unless its adapter holds it already; under its lock, on a fresh row. */
  const activateLocked = (id: string): Promise<void> =>
    locked(id, async () => {
      const fresh = await catalog.getService(id);
      const adapter = fresh?.enabled ? registry.adapter(fresh.adapter) : undefined;
      if (!fresh || !adapter || health.hydrated(id, adapter)) return;
      await hydrate(fresh, adapter);
      // The change that enabled it, when it reaches this host, finds it as hydrated: not again
      // (hydrating twice would retire what calls in flight run on).
      synced.set(id, { print: await printOf(fresh), adapter: fresh.adapter });
    });

  const activate = async (id: string, timeoutMs: number): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            cyrnelError('service_unavailable', `service ${id} did not become active on this host in time`),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([activateLocked(id), expired]);
    } catch (error) {
      if (isCyrnelError(error) && error.reason === 'service_unavailable') throw error;
      throw cyrnelError(
        'service_unavailable',
        `service ${id} could not be activated on this host: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    activate,
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
