import { basename } from 'node:path';
import type {
  AdapterModule,
  BuiltinModule,
  EnvironmentBindings,
  EnvironmentModule,
  ModuleLogger,
} from '@cyrnel/sdk';
import type { JsonPatch, ModuleDetail, ModuleStatus, ReloadModulesResponse } from '@cyrnel/sdk/api';
import type { CatalogStorage, ModuleRow } from './catalog-storage';
import type { EnvironmentProvider } from './environment-provider';
import { createEnvironmentSlot } from './environment-slot';
import { ConflictError, NotFoundError, UpstreamError } from './errors';
import { createKeyedLock } from './keyed-lock';
import { type RegisteredModule, registerBuiltin, scanModules } from './module-loader';
import { createModuleSettings } from './module-settings';
import { errorMessage, scopedLogger } from './scoped-logger';
import type { SecretsVault } from './secrets-vault';

/** Options of {@link createModuleRegistry}. */
export interface ModuleRegistryOptions {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  readonly builtins: readonly BuiltinModule[];
  /** `$dataDir/modules`, scanned for custom modules. */
  readonly modulesDir?: string;
  readonly hostVersion: string;
  readonly logger: ModuleLogger;
  /** What environments are set up with (the process manager's). */
  readonly bindings: EnvironmentBindings;
  readonly now: () => Date;
  /** Called after an adapter's `setup`: hydrate its enabled services. */
  readonly onAdapterActive: (moduleId: string, adapter: AdapterModule) => Promise<void>;
}

interface Runtime {
  /** The code, or undefined while the module is missing. */
  module: RegisteredModule | undefined;
  adapter: AdapterModule | undefined;
  failed: boolean;
  error: string | null;
}

/** Modules: registration, reconciliation with the table, activation, draining (SPEC §3). */
export interface ModuleRegistry {
  readonly environments: EnvironmentProvider;
  /** Register built-ins, scan, reconcile and activate; call once. */
  start(): Promise<ReloadModulesResponse>;
  reload(): Promise<ReloadModulesResponse>;
  details(): Promise<ModuleDetail[]>;
  detail(id: string): Promise<ModuleDetail>;
  setEnabled(id: string, enabled: boolean): Promise<ModuleDetail>;
  getConfig(id: string): Promise<Record<string, unknown>>;
  patchConfig(id: string, patch: JsonPatch): Promise<Record<string, unknown>>;
  getSecretsPresent(id: string): Promise<string[]>;
  patchSecrets(id: string, patch: JsonPatch): Promise<void>;
  /** The active adapter instance of `id`. */
  adapter(id: string): AdapterModule | undefined;
  /** Whether a (present) adapter module of this id is registered. */
  isKnownAdapter(id: string): boolean;
  close(): Promise<void>;
}

/** Create the module registry. */
export function createModuleRegistry(options: ModuleRegistryOptions): ModuleRegistry {
  const { catalog, logger, now } = options;
  const slot = createEnvironmentSlot(logger);
  const settings = createModuleSettings(catalog, options.vault, now);
  const runtimes = new Map<string, Runtime>();
  const lock = createKeyedLock();
  const serial = <T>(task: () => Promise<T>) => lock.run('modules', task);
  const builtins = options.builtins.map(registerBuiltin);

  const runtimeOf = (id: string): Runtime => {
    let runtime = runtimes.get(id);
    if (!runtime) {
      runtime = { module: undefined, adapter: undefined, failed: false, error: null };
      runtimes.set(id, runtime);
    }
    return runtime;
  };

  const statusOf = (row: ModuleRow, runtime: Runtime | undefined): ModuleStatus => {
    if (!runtime?.module || row.missing) return 'missing';
    if (row.type === 'environment') {
      if (slot.activeId() === row.id) return 'active';
      if (slot.isDraining(row.id)) return 'draining';
    } else if (runtime.adapter) return 'active';
    return runtime.failed ? 'failed' : 'inactive';
  };

  const toDetail = (row: ModuleRow): ModuleDetail => {
    const runtime = runtimes.get(row.id);
    const definition = runtime?.module?.definition;
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      type: row.type,
      version: row.version,
      isBuiltin: row.isBuiltin,
      enabled: row.enabled,
      status: statusOf(row, runtime),
      error: row.missing ? 'the module code was not found at the last scan' : (runtime?.error ?? null),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      configSchema: definition?.configSchema ?? {},
      secretsSchema: definition?.secretsSchema ?? {},
    };
  };

  const findRow = async (id: string): Promise<ModuleRow> => {
    const row = (await catalog.listModules()).find((candidate) => candidate.id === id);
    if (!row) throw new NotFoundError(`module ${id} not found`);
    return row;
  };

  const presentModule = (row: ModuleRow): RegisteredModule => {
    const module = runtimes.get(row.id)?.module;
    if (!module || row.missing) throw new ConflictError(`module ${row.id} is missing`);
    return module;
  };

  /** Instantiate and set up; records and rethrows failures. */
  const activate = async (id: string): Promise<void> => {
    const runtime = runtimeOf(id);
    const module = runtime.module;
    if (!module) return;
    try {
      const { config, secrets } = await settings.forSetup(id, module.definition);
      const instance = await module.definition.instantiate();
      const context = { config, secrets, logger: scopedLogger(logger, { module: id }) };
      if (module.info.type === 'adapter') {
        const adapter = instance as AdapterModule;
        await adapter.setup(context);
        Object.assign(runtime, { adapter, failed: false, error: null });
        await options.onAdapterActive(id, adapter);
      } else {
        const environment = instance as EnvironmentModule;
        await environment.setup({ ...context, bindings: options.bindings });
        slot.activate(id, environment);
        Object.assign(runtime, { failed: false, error: null });
      }
      logger.info('module activated', { module: id });
    } catch (error) {
      Object.assign(runtime, { failed: true, error: errorMessage(error) });
      logger.error('module failed to activate', { module: id, error: errorMessage(error) });
      throw error;
    }
  };

  const deactivate = async (id: string): Promise<void> => {
    const runtime = runtimes.get(id);
    if (!runtime) return;
    const adapter = runtime.adapter;
    Object.assign(runtime, { adapter: undefined, failed: false, error: null });
    slot.deactivate(id);
    if (adapter) {
      await adapter.teardown().catch((error: unknown) => {
        logger.error('adapter teardown failed', { module: id, error: errorMessage(error) });
      });
    }
  };

  const tryActivate = (id: string) => activate(id).catch(() => undefined);

  const otherEnabledEnvironments = async (id: string) =>
    (await catalog.listModules()).filter((row) => row.type === 'environment' && row.enabled && row.id !== id);

  /** Reconcile the table with the registered modules (SPEC §3, §9 "Modules"). */
  const reconcile = async (registered: readonly RegisteredModule[]): Promise<void> => {
    const rows = new Map((await catalog.listModules()).map((row) => [row.id, row]));
    const at = now().toISOString();
    const ids = new Set(registered.map((module) => module.info.id));
    const enabledEnvironments = registered
      .map((module) => rows.get(module.info.id))
      .filter((row): row is ModuleRow => row?.type === 'environment' && row.enabled);
    const keep = enabledEnvironments.find((row) => row.id === slot.activeId()) ?? enabledEnvironments[0];
    let environmentEnabled = keep !== undefined;
    for (const module of registered) {
      const { id, type, name, description, version } = module.info;
      let row = rows.get(id);
      const runtime = runtimeOf(id);
      if (!row) {
        const enabled = type === 'adapter' || !environmentEnabled;
        if (type === 'environment' && enabled) environmentEnabled = true;
        row = {
          id,
          type,
          name,
          description,
          version,
          isBuiltin: module.isBuiltin,
          enabled,
          missing: false,
          createdAt: at,
          updatedAt: at,
        };
        await catalog.insertModule(row);
        runtime.module = module;
        if (enabled) await tryActivate(id);
        continue;
      }
      const metadataChanged =
        row.type !== type || row.name !== name || row.description !== description || row.version !== version;
      let enabled = row.enabled;
      if (type === 'environment' && enabled && keep && keep.id !== id) enabled = false;
      if (metadataChanged || row.missing || row.isBuiltin !== module.isBuiltin || enabled !== row.enabled) {
        await catalog.updateModule(id, {
          type,
          name,
          description,
          version,
          isBuiltin: module.isBuiltin,
          enabled,
          missing: false,
          updatedAt: at,
        });
      }
      const previous = runtime.module;
      if (previous && previous.codeKey === module.codeKey && previous.info.type === type && !row.missing) {
        if (!enabled) await deactivate(id);
        continue;
      }
      if (previous) await deactivate(id);
      runtime.module = module;
      if (enabled) await tryActivate(id);
    }
    for (const row of rows.values()) {
      if (ids.has(row.id)) continue;
      if (!row.missing) await catalog.updateModule(row.id, { missing: true, updatedAt: at });
      await deactivate(row.id);
      runtimeOf(row.id).module = undefined;
    }
  };

  const scanAndReconcile = async (): Promise<ReloadModulesResponse> => {
    const scan = await scanModules(options.modulesDir, options.hostVersion);
    const registered: RegisteredModule[] = [];
    const skipped = [...scan.skipped];
    const taken = new Set<string>();
    for (const module of [...builtins, ...scan.found]) {
      if (taken.has(module.info.id)) {
        // First registration wins (SPEC §3): built-ins, then directories in name order.
        skipped.push({
          dir: module.dir ? basename(module.dir) : module.info.id,
          error: `module id ${module.info.id} is already registered`,
        });
        continue;
      }
      taken.add(module.info.id);
      registered.push(module);
    }
    await reconcile(registered);
    for (const entry of skipped) logger.warn('module skipped', { ...entry });
    return {
      loaded: registered.filter((module) => !module.isBuiltin).map((module) => module.info.id),
      skipped,
    };
  };

  return {
    environments: slot.provider,
    start: () => serial(scanAndReconcile),
    reload: () => serial(scanAndReconcile),
    details: async () => (await catalog.listModules()).map(toDetail),
    detail: async (id) => toDetail(await findRow(id)),
    setEnabled: (id, enabled) =>
      serial(async () => {
        const row = await findRow(id);
        const at = () => now().toISOString();
        if (!enabled) {
          if (row.enabled) await catalog.updateModule(id, { enabled: false, updatedAt: at() });
          await deactivate(id);
          return toDetail(await findRow(id));
        }
        presentModule(row);
        if (row.enabled && statusOf(row, runtimes.get(id)) === 'active') return toDetail(row);
        await catalog.updateModule(id, { enabled: true, updatedAt: at() });
        try {
          await activate(id);
        } catch (error) {
          await catalog.updateModule(id, { enabled: false, updatedAt: at() });
          runtimeOf(id).failed = false;
          throw new UpstreamError(`module ${id} failed to activate: ${errorMessage(error)}`, {
            cause: error,
          });
        }
        if (row.type === 'environment') {
          // The previous environment was moved to draining by the slot; its flag goes off too.
          for (const other of await otherEnabledEnvironments(id)) {
            await catalog.updateModule(other.id, { enabled: false, updatedAt: at() });
          }
        }
        return toDetail(await findRow(id));
      }),
    getConfig: async (id) => settings.config(id, presentModule(await findRow(id)).definition),
    patchConfig: (id, patch) =>
      serial(async () => {
        const row = await findRow(id);
        const config = await settings.patchConfig(id, presentModule(row).definition, patch);
        await reactivate(row);
        return config;
      }),
    getSecretsPresent: async (id) => {
      presentModule(await findRow(id));
      return settings.secretsPresent(id);
    },
    patchSecrets: (id, patch) =>
      serial(async () => {
        const row = await findRow(id);
        await settings.patchSecrets(id, presentModule(row).definition, patch);
        await reactivate(row);
      }),
    adapter: (id) => runtimes.get(id)?.adapter,
    isKnownAdapter: (id) => runtimes.get(id)?.module?.info.type === 'adapter',
    async close() {
      await serial(async () => {
        for (const id of runtimes.keys()) {
          const adapter = runtimes.get(id)?.adapter;
          if (adapter) await deactivate(id);
        }
        await slot.close();
      });
    },
  };

  /** Re-activate an enabled module with its new settings: teardown (or drain), then setup. */
  async function reactivate(row: ModuleRow): Promise<void> {
    if (!row.enabled) return;
    if (row.type === 'adapter') await deactivate(row.id);
    try {
      // An environment is not torn down first: activating the new instance drains the old one.
      await activate(row.id);
    } catch (error) {
      throw new UpstreamError(`saved, but module ${row.id} failed to re-activate: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  }
}
