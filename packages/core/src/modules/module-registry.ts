import { basename } from 'node:path';
import type {
  AdapterCredentials,
  AdapterModule,
  BuiltinModule,
  EnvironmentBindings,
  ModuleLogger,
  OutboundPolicy,
  ServiceEvents,
} from '@cyrnel/sdk';
import type { JsonPatch, ModuleDetail, ModuleStatus, ReloadModulesResponse } from '@cyrnel/sdk/api';
import type { CatalogStorage, ModuleRow } from '../catalog/catalog-storage';
import type { EnvironmentProvider } from '../environments/environment-provider';
import { cyrnelError } from '../errors';
import { errorMessage } from '../scoped-logger';
import type { SecretsVault } from '../secrets/secrets-vault';
import { createKeyedLock } from '../services/keyed-lock';
import { createSettings } from '../services/settings';
import type { ModulePresence } from '../several-hosts/module-presence';
import { createModuleResync } from '../several-hosts/module-resync';
import type { SchemaChecker } from '../validation/schema-checker';
import type { ModuleDeadlines } from './module-guard';
import { type RegisteredModule, registerBuiltin, scanModules } from './module-loader';
import { createModuleRuntimes } from './module-runtimes';
import { reconcileModules } from './reconcile-modules';

/** Options of {@link createModuleRegistry}. */
export interface ModuleRegistryOptions {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  /** Cleans a failed activation's message before a module's status shows it. */
  readonly redact?: (text: string) => string;
  /** Validates module config and secrets off the main thread. */
  readonly checker: SchemaChecker;
  readonly builtins: readonly BuiltinModule[];
  /** `$dataDir/modules`, scanned for custom modules. */
  readonly modulesDir?: string;
  readonly hostVersion: string;
  readonly logger: ModuleLogger;
  /** What environments are set up with (the process manager's). */
  readonly bindings: EnvironmentBindings;
  /** Deadlines of module setup and adapter calls (see `ModuleDeadlines`). */
  readonly deadlines?: ModuleDeadlines;
  /** Handed to every module's `setup` as `context.outbound`. */
  readonly outbound?: OutboundPolicy;
  readonly now: () => Date;
  /** Called after an adapter's `setup`: hydrate its enabled services. */
  readonly onAdapterActive: (moduleId: string, adapter: AdapterModule) => Promise<void>;
  /** Handed to every adapter's `setup` as `context.services`. */
  readonly serviceEvents?: ServiceEvents;
  /** Handed to every adapter's `setup` as `context.credentials`. */
  readonly credentials?: AdapterCredentials;
  /** Where modules are among the other live hosts: a module is `missing` only when none has it. */
  readonly presence?: ModulePresence;
  /** Called when a module was activated or deactivated here. */
  readonly onModulesChanged?: () => void;
}

/** Modules: registration, reconciliation with the table, activation, draining. */
export interface ModuleRegistry {
  readonly environments: EnvironmentProvider;
  /** Register built-ins, scan, reconcile and activate; call once. */
  start(): Promise<ReloadModulesResponse>;
  reload(): Promise<ReloadModulesResponse>;
  /** Reload after installing `id`: a module new to the table starts disabled. */
  reloadInstalled(id: string): Promise<ReloadModulesResponse>;
  /** Whether `id` is a built-in module's id. */
  isBuiltin(id: string): boolean;
  /** The directory modules are installed into, if any. */
  readonly modulesDir: string | undefined;
  /** Run `task` serialized with every other module change (installs swap directories under it). */
  serial<T>(task: () => Promise<T>): Promise<T>;
  details(): Promise<ModuleDetail[]>;
  detail(id: string): Promise<ModuleDetail>;
  setEnabled(id: string, enabled: boolean): Promise<ModuleDetail>;
  getConfig(id: string): Promise<Record<string, unknown>>;
  patchConfig(id: string, patch: JsonPatch): Promise<Record<string, unknown>>;
  getSecretsPresent(id: string): Promise<string[]>;
  patchSecrets(id: string, patch: JsonPatch): Promise<void>;
  /** The active adapter instance of `id`. */
  adapter(id: string): AdapterModule | undefined;
  /** The version of the code registered for adapter `id` (what its services are generated with). */
  adapterVersion(id: string): string | undefined;
  /** The ids of the adapters active now (what tool search keeps). */
  activeAdapterIds(): string[];
  /** Whether an adapter module of this id is registered (present or missing). */
  isKnownAdapter(id: string): boolean;
  /** The id of the environment that runs processes here, if any. */
  activeEnvironmentId(): string | undefined;
  /** Every module whose code this host has, with its status here. */
  statuses(): Record<string, ModuleStatus>;
  /**
   * Follow module changes another host made: enable, disable, config and secrets, read
   * from the shared table; a module whose code is not here is left alone.
   */
  resync(): Promise<void>;
  close(): Promise<void>;
}

/** Create the module registry; every change is serialized. */
export function createModuleRegistry(options: ModuleRegistryOptions): ModuleRegistry {
  const { catalog, logger, now } = options;
  const settings = createSettings(catalog, options.vault, now, options.checker);
  const owner = (id: string) => ({ kind: 'module', id }) as const;
  const runtimes = createModuleRuntimes({
    settings,
    logger,
    bindings: options.bindings,
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
    ...(options.outbound ? { outbound: options.outbound } : {}),
    onAdapterActive: options.onAdapterActive,
    ...(options.serviceEvents ? { serviceEvents: options.serviceEvents } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.onModulesChanged ? { onChange: options.onModulesChanged } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
  });
  const presence = options.presence;
  const resyncing = createModuleResync(catalog, runtimes);
  const { remember } = resyncing;
  const lock = createKeyedLock();
  const serial = <T>(task: () => Promise<T>) => lock.run('modules', task);
  const builtins = options.builtins.map(registerBuiltin);
  const at = () => now().toISOString();

  /** The status of a module whose code is not here: the best among the live hosts that have it. */
  const statusElsewhere = (id: string) => presence?.elsewhere(id);

  const toDetail = (row: ModuleRow): ModuleDetail => {
    const runtime = runtimes.get(row.id);
    const definition = runtime?.module?.definition;
    const elsewhere = runtime?.module ? undefined : statusElsewhere(row.id);
    const { id, name, description, type, version, isBuiltin, enabled, createdAt, updatedAt } = row;
    return {
      id,
      name,
      description,
      type,
      version,
      isBuiltin,
      enabled,
      status: elsewhere?.status ?? runtimes.status(row),
      error: elsewhere
        ? `the module's code is not on this host; on: ${elsewhere.hosts.join(', ')}`
        : runtime?.module
          ? (runtime.error ?? null)
          : 'the module code was not found at the last scan',
      origin: runtime?.module?.origin ?? null,
      createdAt,
      updatedAt,
      configSchema: definition?.configSchema ?? {},
      secretsSchema: definition?.secretsSchema ?? {},
    };
  };

  const findRow = async (id: string): Promise<ModuleRow> => {
    const row = (await catalog.listModules()).find((candidate) => candidate.id === id);
    if (!row) throw cyrnelError('module_not_found', `module ${id} not found`);
    return row;
  };

  const presentModule = (row: ModuleRow): RegisteredModule => {
    const module = runtimes.get(row.id)?.module;
    if (!module) {
      const elsewhere = statusElsewhere(row.id);
      throw cyrnelError(
        'module_missing',
        elsewhere
          ? `module ${row.id} is not on this host (on: ${elsewhere.hosts.join(', ')}): change it there`
          : `module ${row.id} is missing`,
      );
    }
    return module;
  };

  /** Re-activate an enabled module with new settings: an adapter is torn down first; an environment drains. */
  const reactivate = async (row: ModuleRow): Promise<void> => {
    if (!row.enabled) return;
    if (row.type === 'adapter') await runtimes.deactivate(row.id);
    try {
      await runtimes.activate(row.id);
    } catch (error) {
      throw cyrnelError(
        'module_setup_failed',
        `saved, but module ${row.id} failed to re-activate: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
  };

  const enable = async (row: ModuleRow): Promise<void> => {
    presentModule(row);
    if (row.enabled && runtimes.status(row) === 'active') return;
    await catalog.updateModule(row.id, { enabled: true, updatedAt: at() });
    try {
      await runtimes.activate(row.id);
    } catch (error) {
      await catalog.updateModule(row.id, { enabled: false, updatedAt: at() });
      runtimes.of(row.id).failed = false;
      throw cyrnelError(
        'module_setup_failed',
        `module ${row.id} failed to activate: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
    if (row.type !== 'environment') return;
    // The previous environment is draining now; its flag goes off too.
    for (const other of await catalog.listModules()) {
      if (other.type === 'environment' && other.enabled && other.id !== row.id) {
        await catalog.updateModule(other.id, { enabled: false, updatedAt: at() });
      }
    }
  };

  const scanAndReconcile = async (
    startDisabled: ReadonlySet<string> = new Set(),
  ): Promise<ReloadModulesResponse> => {
    const scan = await scanModules(options.modulesDir, options.hostVersion);
    const registered: RegisteredModule[] = [];
    const skipped = [...scan.skipped];
    const taken = new Set<string>();
    for (const module of [...builtins, ...scan.found]) {
      if (taken.has(module.info.id)) {
        // First registration wins: built-ins, then directories in name order (a custom module cannot
        // replace a built-in one, and a scan always registers the same one).
        skipped.push({
          dir: module.dir ? basename(module.dir) : module.info.id,
          error: `module id ${module.info.id} is already registered`,
        });
        continue;
      }
      taken.add(module.info.id);
      registered.push(module);
    }
    await reconcileModules(
      catalog,
      runtimes,
      registered,
      at(),
      startDisabled,
      (id) => presence?.onAnotherHost(id) ?? false,
    );
    // One read of the table for all of them (not one per module, at every start).
    for (const row of await catalog.listModules()) if (taken.has(row.id)) await remember(row);
    for (const entry of skipped) logger.warn('module skipped', { ...entry });
    return {
      loaded: registered.filter((module) => !module.isBuiltin).map((module) => module.info.id),
      skipped,
    };
  };

  return {
    environments: runtimes.environments,
    start: () => serial(() => scanAndReconcile()),
    reload: () => serial(() => scanAndReconcile()),
    // Called inside `serial` by the installer.
    reloadInstalled: (id) => scanAndReconcile(new Set([id])),
    isBuiltin: (id) => builtins.some((module) => module.info.id === id),
    modulesDir: options.modulesDir,
    serial,
    details: async () => (await catalog.listModules()).map(toDetail),
    detail: async (id) => toDetail(await findRow(id)),
    setEnabled: (id, enabled) =>
      serial(async () => {
        const row = await findRow(id);
        if (enabled) await enable(row);
        else {
          if (row.enabled) await catalog.updateModule(id, { enabled: false, updatedAt: at() });
          await runtimes.deactivate(id);
        }
        for (const each of await catalog.listModules()) if (each.type === row.type) await remember(each);
        return toDetail(await findRow(id));
      }),
    getConfig: async (id) => settings.config(owner(id), presentModule(await findRow(id)).definition),
    patchConfig: (id, patch) =>
      serial(async () => {
        const row = await findRow(id);
        const { value } = await settings.patchConfig(owner(id), presentModule(row).definition, patch);
        await remember(row);
        await reactivate(row);
        // A module's settings change rarely: the validation workers that checked them (and its
        // setup) do not wait a minute for more.
        options.checker.releaseIdle();
        return value;
      }),
    // Serialized: reading may re-encrypt a record found under a previous key.
    getSecretsPresent: (id) =>
      serial(async () => {
        presentModule(await findRow(id));
        return settings.secretsPresent(owner(id));
      }),
    patchSecrets: (id, patch) =>
      serial(async () => {
        const row = await findRow(id);
        await settings.patchSecrets(owner(id), presentModule(row).definition, patch);
        await remember(row);
        await reactivate(row);
        options.checker.releaseIdle();
      }),
    adapter: (id) => runtimes.get(id)?.adapter,
    adapterVersion: (id) => runtimes.get(id)?.module?.info.version,
    activeAdapterIds: () => runtimes.activeAdapterIds(),
    isKnownAdapter: (id) => runtimes.get(id)?.type === 'adapter',
    activeEnvironmentId: () => runtimes.activeEnvironmentId(),
    statuses: () => runtimes.statuses(),
    resync: () => serial(resyncing.resync),
    close: () => serial(() => runtimes.close()),
  };
}
