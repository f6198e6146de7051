import type {
  AdapterCredentials,
  AdapterModule,
  EnvironmentBindings,
  EnvironmentModule,
  ModuleLogger,
  ModuleSetupContext,
  ModuleType,
  OutboundPolicy,
  ServiceEvents,
} from '@cyrnel/sdk';
import type { ModuleStatus } from '@cyrnel/sdk/api';
import type { ModuleRow } from '../catalog/catalog-storage';
import type { EnvironmentProvider } from '../environments/environment-provider';
import { createEnvironmentSlot } from '../environments/environment-slot';
import { errorMessage, scopedLogger } from '../scoped-logger';
import type { Settings } from '../services/settings';
import { guardAdapter, guardEnvironment, instantiateModule, type ModuleDeadlines } from './module-guard';
import type { RegisteredModule } from './module-loader';

/** What the host knows about one module id at runtime. */
export interface ModuleRuntime {
  /** The module's type, kept while it is missing (its services answer 503, not 400). */
  type: ModuleType | undefined;
  /** The code, or undefined while the module is missing. */
  module: RegisteredModule | undefined;
  /** The set-up adapter instance while the adapter is active. */
  adapter: AdapterModule | undefined;
  /** The last activation failed. */
  failed: boolean;
  error: string | null;
}

/** Options of {@link createModuleRuntimes}. */
export interface ModuleRuntimesOptions {
  readonly settings: Pick<Settings, 'forSetup'>;
  readonly logger: ModuleLogger;
  readonly bindings: EnvironmentBindings;
  /** Deadlines of setup and adapter calls; every instance runs behind `guardAdapter`/`guardEnvironment`. */
  readonly deadlines?: ModuleDeadlines;
  /** Handed to every module's `setup` as `context.outbound`. */
  readonly outbound?: OutboundPolicy;
  readonly onAdapterActive: (moduleId: string, adapter: AdapterModule) => Promise<void>;
  /** Handed to every adapter's `setup` as `context.services`. */
  readonly serviceEvents?: ServiceEvents;
  /** Handed to every adapter's `setup` as `context.credentials`. */
  readonly credentials?: AdapterCredentials;
  /** Called after every activation and deactivation (what {@link ModuleRuntimes.statuses} answers changed). */
  readonly onChange?: () => void;
  /** Cleans a failure's message before the module's status shows it (the host's redactor). */
  readonly redact?: (text: string) => string;
}

/** Module instances: activation (setup), deactivation (teardown or draining) and status. */
export interface ModuleRuntimes {
  readonly environments: EnvironmentProvider;
  /** The runtime of `id`, created empty on first use. */
  of(id: string): ModuleRuntime;
  get(id: string): ModuleRuntime | undefined;
  status(row: ModuleRow): ModuleStatus;
  /** Instantiate and set up; records the failure on the runtime and rethrows it. */
  activate(id: string): Promise<void>;
  /** Activate, logging (not throwing) a failure: used at start and on reload. */
  tryActivate(id: string): Promise<void>;
  /** Tear an adapter down, or move an environment to draining. */
  deactivate(id: string): Promise<void>;
  activeEnvironmentId(): string | undefined;
  /** The ids of the adapters set up now. */
  activeAdapterIds(): string[];
  /** Every module whose code this host has, with its status here (`active`, `inactive`, `failed`). */
  statuses(): Record<string, ModuleStatus>;
  close(): Promise<void>;
}

/** Create the module runtimes. */
export function createModuleRuntimes(options: ModuleRuntimesOptions): ModuleRuntimes {
  const { settings, logger } = options;
  const slot = createEnvironmentSlot(logger);
  const runtimes = new Map<string, ModuleRuntime>();

  const of = (id: string): ModuleRuntime => {
    let runtime = runtimes.get(id);
    if (!runtime) {
      runtime = { type: undefined, module: undefined, adapter: undefined, failed: false, error: null };
      runtimes.set(id, runtime);
    }
    return runtime;
  };

  const activate = async (id: string): Promise<void> => {
    try {
      await setUp(id);
    } finally {
      options.onChange?.();
    }
  };

  const setUp = async (id: string): Promise<void> => {
    const runtime = of(id);
    const module = runtime.module;
    if (!module) return;
    try {
      const { config, secrets } = await settings.forSetup({ kind: 'module', id }, module.definition);
      const instance = await instantiateModule(id, () => module.definition.instantiate(), options.deadlines);
      const moduleLogger = scopedLogger(logger, { module: id });
      const context: ModuleSetupContext = {
        config,
        secrets,
        logger: moduleLogger,
        ...(options.outbound ? { outbound: options.outbound } : {}),
      };
      const guard = { logger: moduleLogger, ...(options.deadlines ? { deadlines: options.deadlines } : {}) };
      if (module.info.type === 'adapter') {
        const adapter = guardAdapter(id, instance as AdapterModule, guard);
        await adapter.setup({
          ...context,
          ...(options.serviceEvents ? { services: options.serviceEvents } : {}),
          ...(options.credentials ? { credentials: options.credentials } : {}),
        });
        Object.assign(runtime, { adapter, failed: false, error: null });
        await options.onAdapterActive(id, adapter);
      } else {
        const environment = guardEnvironment(id, instance as EnvironmentModule, guard);
        await environment.setup({ ...context, bindings: options.bindings });
        // The previous environment, if any, drains from here on: its runs finish, new ones go to this one.
        slot.activate(id, environment);
        Object.assign(runtime, { failed: false, error: null });
      }
      logger.info('module activated', { module: id });
    } catch (error) {
      Object.assign(runtime, {
        failed: true,
        error: options.redact?.(errorMessage(error)) ?? errorMessage(error),
      });
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
    options.onChange?.();
    // The guard refuses later calls, aborts those in flight, and logs a failed or late teardown.
    if (adapter) await adapter.teardown();
  };

  const localStatus = (id: string, runtime: ModuleRuntime): ModuleStatus => {
    if (runtime.module?.info.type === 'environment') {
      if (slot.activeId() === id) return 'active';
      if (slot.isDraining(id)) return 'draining';
    } else if (runtime.adapter) return 'active';
    return runtime.failed ? 'failed' : 'inactive';
  };

  return {
    environments: slot.provider,
    of,
    get: (id) => runtimes.get(id),
    status(row) {
      const runtime = runtimes.get(row.id);
      // Whether the code is here is this host's own knowledge (the row is shared by every host).
      if (!runtime?.module) return 'missing';
      return localStatus(row.id, runtime);
    },
    statuses() {
      const statuses: Record<string, ModuleStatus> = {};
      for (const [id, runtime] of runtimes) if (runtime.module) statuses[id] = localStatus(id, runtime);
      return statuses;
    },
    activate,
    tryActivate: (id) => activate(id).catch(() => undefined),
    deactivate,
    activeEnvironmentId: () => slot.activeId(),
    activeAdapterIds: () => [...runtimes].filter(([, runtime]) => runtime.adapter).map(([id]) => id),
    async close() {
      for (const [id, runtime] of runtimes) if (runtime.adapter) await deactivate(id);
      await slot.close();
    },
  };
}
