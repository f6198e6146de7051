import { join } from 'node:path';
import type { BuiltinModule, ModuleLogger, OutboundPolicy } from '@cyrnel/sdk';
import { version } from '../../package.json';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { createDirectCallsHost } from '../direct-calls/direct-calls-host';
import { createEnvironmentApi } from '../environments/environment-api';
import { createModuleRegistry } from '../modules/module-registry';
import { createModulesApi } from '../modules/modules-api';
import { createProcessManager, type ProcessLimits, type ProcessStorage } from '../processes/index';
import { startAutoUpdate } from '../registries/auto-update';
import { createModuleInstaller } from '../registries/module-installer';
import { createServiceRegistries } from '../registries/service-registries';
import { errorMessage, silentLogger } from '../scoped-logger';
import { createSecretsCipher } from '../secrets/secrets-cipher';
import { createSecretsVault } from '../secrets/secrets-vault';
import { createServiceHealth } from '../services/service-health';
import { createServicesApi } from '../services/services-api';
import { type CatalogTarget, watchCatalog } from '../several-hosts/catalog-revision';
import type { HostSignals } from '../several-hosts/host-signals';
import { createProcessNeeds } from '../several-hosts/process-needs';
import { createSharedSchemasCache } from '../tools/shared-schemas-cache';
import { createToolGateway } from '../tools/tool-gateway-impl';
import { createToolsApi } from '../tools/tools-api';
import { createSchemaChecker, type SchemaCheckerOptions } from '../validation/schema-checker';
import type { CyrnelHost } from './host-api';

/**
 * The version custom modules' `engines.cyrnel` ranges are checked against by default: this
 * package's `package.json` version (changesets bumps only that; the bundler inlines it).
 */
export const HOST_VERSION: string = version;

/** The storage ports the host needs (a `Store` of `@cyrnel/store`: `openSqliteStore()` of `@cyrnel/store/sqlite` returns one). */
export interface HostStorage {
  readonly catalog: CatalogStorage;
  readonly processes: ProcessStorage;
  /** Wake-ups between hosts sharing the storage (PostgreSQL's LISTEN/NOTIFY); absent: polls only. */
  readonly signals?: HostSignals;
}

/** Where services and modules are installed from. */
export interface RegistryOptions {
  /** Registries (base URLs or metadata URLs) searched in order for bare service names. */
  readonly urls?: readonly string[];
  /** Base URL of the npm registry modules are installed from. Default `https://registry.npmjs.org`. */
  readonly npmRegistry?: string;
  /**
   * Where registry and npm downloads may connect (default: `CreateHostOptions.outbound`, and
   * nothing checked without one).
   */
  readonly outbound?: OutboundPolicy;
  /** Largest download (metadata, definition, archive) in bytes. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Deadline of one download. Default 30 s. */
  readonly timeoutMs?: number;
  /**
   * Every this many ms, update the modules whose `autoUpdate` is on, then every registry-installed
   * service. Default: never.
   */
  readonly autoUpdateIntervalMs?: number;
}

/** Options of {@link createHost}. */
export interface CreateHostOptions {
  readonly storage: HostStorage;
  /** Built-in modules, registered before custom ones (they win id collisions). */
  readonly builtins?: readonly BuiltinModule[];
  /** The data directory; custom modules are scanned in `$dataDir/modules`. */
  readonly dataDir?: string;
  /** Overrides `$dataDir/modules`. */
  readonly modulesDir?: string;
  /** 32-byte secrets key (raw or base64); see `loadSecretsKey`. */
  readonly secretsKey: Uint8Array | string;
  /** Keys that still decrypt; records read with them are re-encrypted with `secretsKey`. */
  readonly previousSecretsKeys?: readonly (Uint8Array | string)[];
  readonly logger?: ModuleLogger;
  /** Checked against custom modules' `engines.cyrnel`; default {@link HOST_VERSION}. */
  readonly hostVersion?: string;
  /**
   * Process limits (SPEC §9 defaults), the deadline of one adapter call (default 60 s) and of a
   * module's setup (default 30 s).
   */
  readonly limits?: Partial<ProcessLimits> & {
    readonly invokeTimeoutMs?: number;
    readonly moduleSetupTimeoutMs?: number;
  };
  /**
   * Where modules may connect on behalf of agent code, handed to every module's `setup` as
   * `context.outbound` (see `createOutboundPolicy`). Absent: modules check nothing.
   */
  readonly outbound?: OutboundPolicy;
  /**
   * Offer environments direct calls (issue 21): sandbox processes call portable adapters' tools
   * themselves. Default true; false sends every call through the host's gate. A policy in
   * `outbound` not made by `createOutboundPolicy` turns them off too (it cannot be moved).
   */
  readonly directToolCalls?: boolean;
  /**
   * This host's identity when several hosts share the storage (issue 22; see
   * `ProcessManagerOptions.host`): stable across restarts, so a restarted host fails its own
   * leftovers at once; unique per host. Absent: the storage is this host's alone.
   */
  readonly host?: {
    readonly id: string;
    readonly heartbeatMs?: number;
    readonly leaseMs?: number;
    /**
     * How often to look for catalog writes of other hosts (the storage's shared count), in ms;
     * default 1000, 0: never (a storage no other host writes to). A change seen re-hydrates the
     * services it touched, follows module changes and reaches the sandbox processes (issue 22).
     * With `storage.signals` a change is looked at as soon as it is announced (just the service
     * or module it names), and this backstop runs every `max(catalogPollMs, 10_000)` ms.
     */
    readonly catalogPollMs?: number;
    /** Runs held at once before new work is left to the shared queue (default 32). */
    readonly slots?: number;
    /** How often to look at the shared queue without a signal, in ms (default 2,000). */
    readonly queuePollMs?: number;
  };
  /** Registries, npm and auto-updates (issue 16); see {@link RegistryOptions}. */
  readonly registries?: RegistryOptions;
  /** Workers and deadlines of schema validation (tool parameters, config, secrets). */
  readonly validation?: SchemaCheckerOptions;
  /** Clock, for tests. */
  readonly now?: () => Date;
}

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
  const { storage } = options;
  // Every write goes through the watched port, so per-revision caches see it.
  // A write is acknowledged only once every sandbox process dropped what direct calls prepared.
  const signals = options.host ? storage.signals : undefined;
  const watched = watchCatalog(storage.catalog, async (target) => {
    await directCalls.changed();
    // Other hosts look at what changed now rather than at their next poll.
    await signals
      ?.publish('catalog', JSON.stringify({ ...target, from: options.host?.id }))
      .catch(() => undefined);
  });
  const { catalog, revision } = watched;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const { invokeTimeoutMs, moduleSetupTimeoutMs, ...processLimits } = options.limits ?? {};
  const cipher = createSecretsCipher({ key: options.secretsKey, previousKeys: options.previousSecretsKeys });
  const vault = createSecretsVault(catalog, cipher, now);
  // The registry is created after the gateway and the process manager, which reach it lazily.
  const adapter = (id: string) => registry.adapter(id);
  const checker = createSchemaChecker(options.validation);
  const activeAdapterIds = () => registry.activeAdapterIds();
  const sharedSchemas = createSharedSchemasCache(catalog);
  // Which services this host failed to hydrate: read by the gate, discovery, lists and types.
  const health = createServiceHealth();
  const gateway = createToolGateway({
    catalog,
    checker,
    sharedSchemas,
    adapter,
    activeAdapterIds,
    health,
  });
  // Rendered declarations change with the catalog, which adapters are active and which services
  // failed to hydrate; so do the calls sandbox processes may make themselves.
  const catalogState = () => `${revision()}:${activeAdapterIds().sort().join(',')}:${health.version()}`;
  const directCalls = createDirectCallsHost({
    catalog,
    sharedSchemas,
    adapter,
    health,
    revision: catalogState,
    ...(options.outbound ? { outbound: options.outbound } : {}),
  });
  const environments = {
    lease: () => registry.environments.lease(),
    active: () => registry.environments.active(),
  };
  const processes = createProcessManager({
    storage: storage.processes,
    environments,
    // `environment` is created below; the sandbox reaches it only once processes run.
    tools: { ...gateway, discoverTypes: (selection) => environment.types(selection) },
    ...(options.directToolCalls === false ? {} : { directCalls }),
    limits: processLimits,
    logger,
    now,
    ...(options.host
      ? {
          host: {
            ...options.host,
            ...(signals ? { signals } : {}),
            needs: createProcessNeeds({
              catalog,
              revision,
              environmentId: () => registry.activeEnvironmentId(),
            }),
            modules: () => registry.statuses(),
          },
        }
      : {}),
  });
  const services = createServicesApi({
    catalog,
    vault,
    registry: {
      adapter,
      isKnownAdapter: (id) => registry.isKnownAdapter(id),
      adapterVersion: (id) => registry.adapterVersion(id),
    },
    checker,
    logger,
    now,
    health,
    afterHydration: () => directCalls.changed(),
  });
  const registry = createModuleRegistry({
    catalog,
    vault,
    checker,
    builtins: options.builtins ?? [],
    modulesDir: options.modulesDir ?? (options.dataDir ? join(options.dataDir, 'modules') : undefined),
    hostVersion: options.hostVersion ?? HOST_VERSION,
    logger,
    bindings: processes.bindings,
    deadlines: {
      ...(invokeTimeoutMs === undefined ? {} : { invokeMs: invokeTimeoutMs }),
      ...(moduleSetupTimeoutMs === undefined ? {} : { setupMs: moduleSetupTimeoutMs }),
    },
    ...(options.outbound ? { outbound: options.outbound } : {}),
    now,
    onAdapterActive: async (id, instance) => {
      await services.hydrateAdapter(id, instance);
      await directCalls.changed();
    },
    serviceEvents: { toolsChanged: (serviceId) => services.toolsChanged(serviceId) },
    peers: () => processes.peers(),
    onModulesChanged: () => {
      processes
        .modulesChanged()
        .catch((error: unknown) =>
          logger.error('modules: telling the other hosts failed', { error: errorMessage(error) }),
        );
    },
  });
  try {
    await processes.recover();
    await registry.start();
  } catch (error) {
    // Leave nothing running when the host cannot start.
    await processes.close({ graceMs: 0 }).catch(() => undefined);
    await registry.close().catch(() => undefined);
    await checker.close();
    throw error;
  }
  // Catalog writes of other hosts on the same database (issue 22).
  const pollMs = options.host ? (options.host.catalogPollMs ?? 1000) : 0;
  let catalogPoll: NodeJS.Timeout | undefined;
  let stopSignals: (() => void) | undefined;
  if (pollMs > 0) {
    await watched.poll();
    await services.resync();
    // One look at a time; what was announced meanwhile is looked at next, all of it at once.
    let looking = false;
    const pending = { all: false, modules: false, services: new Set<string>() };
    const look = (target: CatalogTarget | 'all'): void => {
      if (target === 'all') pending.all = true;
      else if ('module' in target) pending.modules = true;
      else pending.services.add(target.service);
      if (looking) return;
      looking = true;
      void (async () => {
        while (pending.all || pending.modules || pending.services.size > 0) {
          const all = pending.all;
          const modules = pending.modules;
          const named = [...pending.services];
          Object.assign(pending, { all: false, modules: false });
          pending.services.clear();
          // The backstop looks at everything, only when the shared count moved.
          if (all && (await watched.poll())) {
            await registry.resync();
            await services.resync();
          } else if (modules || named.length > 0) {
            if (modules) await registry.resync();
            for (const id of named) await services.resyncService(id);
          } else continue;
          await directCalls.changed();
        }
      })()
        .catch((error: unknown) =>
          logger.error('catalog: reading changes of other hosts failed', { error: errorMessage(error) }),
        )
        .finally(() => {
          looking = false;
        });
    };
    // With signals, announced changes are looked at one by one; the poll only catches what a
    // lost signal missed, so it may be slow.
    catalogPoll = setInterval(() => look('all'), signals ? Math.max(pollMs, 10_000) : pollMs);
    catalogPoll.unref();
    stopSignals = signals?.subscribe('catalog', (payload) => {
      const heard = parseSignal(payload);
      // This host's own writes are in effect here already.
      if (heard.from !== options.host?.id) look(heard.target ?? 'all');
    });
  }
  // What this host has is known now: the others see it, and it takes queued work it can run.
  await processes.modulesChanged();
  const registryOptions = options.registries ?? {};
  const access = {
    urls: registryOptions.urls ?? [],
    hostVersion: options.hostVersion ?? HOST_VERSION,
    download: {
      outbound: registryOptions.outbound ?? options.outbound ?? { check() {} },
      maxBytes: registryOptions.maxBytes ?? 64 * 1024 * 1024,
      timeoutMs: registryOptions.timeoutMs ?? 30_000,
    },
  };
  const serviceRegistries = createServiceRegistries({ ...access, catalog, services, logger });
  const installer = createModuleInstaller({
    ...access,
    registry,
    registries: serviceRegistries,
    npmRegistry: registryOptions.npmRegistry ?? 'https://registry.npmjs.org',
    logger,
  });
  const autoUpdate = startAutoUpdate(registryOptions.autoUpdateIntervalMs, logger, async () => {
    await installer.updateAll();
    await serviceRegistries.updateAll();
  });
  const tools = createToolsApi({
    catalog,
    isAdapterActive: (id) => registry.adapter(id) !== undefined,
    activeAdapterIds,
    environments,
    sharedSchemas,
    health,
    now,
  });
  const environment = createEnvironmentApi(environments, tools, catalogState);
  let closing: Promise<void> | undefined;
  return {
    modules: createModulesApi(registry, installer),
    services: {
      ...services,
      installFromRegistry: (input) => serviceRegistries.installService(input),
      updateFromRegistry: (id) => serviceRegistries.updateService(id),
    },
    registries: {
      list: () => serviceRegistries.list(),
      services: () => serviceRegistries.browse('services'),
      modules: () => serviceRegistries.browse('modules'),
    },
    tools,
    environment,
    processes: processes.api,
    catalogVersion: catalogState,
    close(closeOptions) {
      closing ??= (async () => {
        clearInterval(catalogPoll);
        stopSignals?.();
        autoUpdate.stop();
        await processes.close(closeOptions);
        await registry.close();
        await checker.close();
      })();
      return closing;
    },
  };
}

/** What a `catalog` signal says: the host that wrote and what it touched (none: look at everything). */
function parseSignal(payload: string | null): { from?: string; target?: CatalogTarget } {
  if (!payload) return {};
  try {
    const value = JSON.parse(payload) as { service?: unknown; module?: unknown; from?: unknown };
    const from = typeof value.from === 'string' ? { from: value.from } : {};
    if (typeof value.service === 'string') return { ...from, target: { service: value.service } };
    if (typeof value.module === 'string') return { ...from, target: { module: value.module } };
    return from;
  } catch {
    // A payload of another version: look at everything.
    return {};
  }
}
