import { version } from '../../package.json';
import { createServiceStats } from '../efficiency/service-stats';
import { foldCallJournals } from '../gateway/call-journal';
import { readHostStats } from '../metrics/host-stats';
import { createModulesApi } from '../modules/modules-api';
import { followCatalogChanges } from '../several-hosts/catalog-changes';
import type { CyrnelHost } from './host-api';
import type { CreateHostOptions } from './host-options';
import { createHostParts, type HostParts } from './host-parts';
import { createHostRegistries, type HostRegistries, registryAccess } from './host-registries';

/**
 * The version custom modules' `engines.cyrnel` ranges are checked against by default: this
 * package's `package.json` version (changesets bumps only that; the bundler inlines it).
 */
export const HOST_VERSION: string = version;

/**
 * Create the host engine: register and activate modules, recover interrupted processes, and
 * answer the {@link CyrnelHost} API. `close()` releases everything.
 *
 * @example
 * ```ts
 * const store = await openSqliteStore({ dataDir });
 * const { key, previousKeys } = loadSecretsKey({ dataDir, env: process.env, logger });
 * const host = await createHost({ storage: store, builtins: [openapi, typescriptIvm], dataDir,
 *   secretsKey: key, previousSecretsKeys: previousKeys, logger });
 * ```
 */
export async function createHost(options: CreateHostOptions): Promise<CyrnelHost> {
  const hostVersion = options.hostVersion ?? HOST_VERSION;
  const access = registryAccess(options, hostVersion);
  const parts = createHostParts(options, access, hostVersion);
  const { watched, checker, directCalls, processes, services, registry, logger } = parts;
  try {
    // Calls a crash left journaled only: recorded before the interrupted runs are closed.
    const journal = options.egress?.callJournal;
    if (journal) await foldCallJournals(journal, options.storage.processes, logger);
    await processes.recover();
    await registry.start();
  } catch (error) {
    // Leave nothing running when the host cannot start.
    await processes.close({ graceMs: 0 }).catch(() => undefined);
    await registry.close().catch(() => undefined);
    await checker.close();
    await parts.egress.close();
    throw error;
  }
  // Catalog writes of other hosts on the same database.
  const pollMs = options.host ? (options.host.catalogPollMs ?? 1000) : 0;
  const following =
    options.host && pollMs > 0
      ? await followCatalogChanges({
          watched,
          registry,
          services,
          directCalls,
          signals: options.storage.signals,
          hostId: options.host.id,
          pollMs,
          logger,
        })
      : undefined;
  // What this host has is known now: the others see it, and it takes queued work it can run.
  await processes.modulesChanged();
  const registries = createHostRegistries(options, access, parts);
  const stored = options.storage.processes;
  const stats = createServiceStats({
    catalog: parts.catalog,
    // A run `wait` just answered (from memory) is counted: its end is written first.
    storage: { serviceStats: (id) => processes.endsWritten().then(() => stored.serviceStats(id)) },
  });
  // The modules' config was checked at start; no validation worker waits a minute for more.
  checker.releaseIdle();
  return hostApi(parts, registries, stats, () => following?.stop(), options.host !== undefined);
}

/**
 * The {@link CyrnelHost} over the started parts; `close` stops them in reverse order of start.
 * `shared`: the host has an id among others (a storage without one has no shared queue).
 */
function hostApi(
  parts: HostParts,
  registries: HostRegistries,
  stats: CyrnelHost['services']['stats'],
  stopFollowing: () => void,
  shared: boolean,
): CyrnelHost {
  const { processes, registry, checker } = parts;
  const { connections, router: _router, ...services } = parts.services;
  let closing: Promise<void> | undefined;
  return {
    modules: createModulesApi(registry, registries.installer),
    services: {
      ...services,
      installFromRegistry: (input) => registries.services.installService(input),
      updateFromRegistry: (id) => registries.services.updateService(id),
      stats,
    },
    connections,
    registries: {
      list: () => registries.services.list(),
      services: () => registries.services.browse('services'),
      modules: () => registries.services.browse('modules'),
    },
    tools: parts.tools,
    environment: parts.environment,
    processes: processes.api,
    approvals: {
      list: (query) => parts.approvals.list(query),
      get: (id) => parts.approvals.get(id),
      decide: (id, body, decideOptions) =>
        parts.approvals.decide(id, body, decideOptions?.keyId ?? null, 'call'),
      decidePlan: (id, body, decideOptions) =>
        parts.approvals.decide(id, body, decideOptions?.keyId ?? null, 'plan'),
    },
    policies: {
      get: (serviceId) => parts.policies.get(serviceId),
      set: (serviceId, policy) => parts.policies.set(serviceId, policy, new Date().toISOString()),
    },
    catalogVersion: parts.catalogState,
    stats: () =>
      readHostStats({
        liveStates: () => processes.liveStates(),
        // Without a host id every process is without an owner: there is no shared queue to count.
        countUnclaimed: () => (shared ? parts.processStorage.countUnclaimed() : Promise.resolve(0)),
        peers: () => (shared ? processes.peers().length : 0),
        approvalsPending: () => parts.approvals.pending(),
        egress: () => parts.egress.stats(),
        validation: () => checker.stats(),
        environment: () => parts.environments.active()?.stats?.(),
      }),
    close(closeOptions) {
      closing ??= (async () => {
        stopFollowing();
        registries.stop();
        await processes.close(closeOptions);
        // What the last calls taught is written while the storage is still open.
        await parts.observer.settled().catch(() => undefined);
        parts.approvals.close();
        await registry.close();
        await checker.close();
        await parts.egress.close();
      })();
      return closing;
    },
  };
}
