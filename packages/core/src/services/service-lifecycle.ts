import type {
  AdapterModule,
  GenerateDefinitionContext,
  ModuleLogger,
  ServiceDefinition,
  ServiceState,
} from '@cyrnel/sdk';
import type { CatalogStorage, ServiceRow } from '../catalog/catalog-storage';
import { cyrnelError } from '../errors';
import type { ModuleRegistry } from '../modules/module-registry';
import { errorMessage } from '../scoped-logger';
import { checkDefinition } from './check-definition';
import { type DefinitionOrigin, definitionFields, regeneratedHash } from './definition-fields';
import type { ServiceHealth } from './service-health';
import type { Settings } from './settings';

/** Options of {@link createServiceLifecycle}. */
export interface ServiceLifecycleOptions {
  readonly catalog: CatalogStorage;
  readonly settings: Pick<Settings, 'forSetup' | 'current' | 'setupConfig' | 'checkSecrets'>;
  readonly registry: Pick<ModuleRegistry, 'adapter' | 'isKnownAdapter' | 'adapterVersion'>;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** Records each hydration's outcome; dehydrating forgets it. */
  readonly health: ServiceHealth;
  /** Awaited after each hydration (successful or not) and each dehydration. */
  readonly afterHydration?: () => Promise<void>;
  /**
   * The adapter states hydrated for a service's connections: hydrated again after the service
   * was (its config or tools may have changed), dropped with it.
   */
  readonly connections?: {
    refreshService(serviceId: string): Promise<void>;
    dropService(serviceId: string): Promise<void>;
    /**
     * The secrets the service's own `default` connection adds from its OAuth state (the access
     * token under its scheme's name); empty when it does not sign in with OAuth.
     */
    defaultTokens?(serviceId: string): Promise<Record<string, string>>;
  };
}

/**
 * The adapter calls of a service's life, in a fixed order: `generateDefinition` before anything is
 * stored, `hydrateService` only with validated settings, `dehydrateService` before anything changes.
 */
export interface ServiceLifecycle {
  /** The service row; 404 `service_not_found` when unknown. */
  find(id: string): Promise<ServiceRow>;
  /** The active adapter; unknown id → 400, not active → 503. */
  activeAdapter(adapterId: string): AdapterModule;
  /** `generateDefinition`, checked; a refusal is a 400 with the adapter's message. */
  generate(
    adapter: AdapterModule,
    adapterId: string,
    text: string,
    context?: GenerateDefinitionContext,
  ): Promise<ServiceDefinition>;
  /** `dehydrateService` when the adapter is active; failures are logged (it must be idempotent). */
  dehydrate(row: ServiceRow): Promise<void>;
  /** `hydrateService` with the validated state; a throw becomes a 502. */
  hydrate(row: ServiceRow, adapter: AdapterModule): Promise<void>;
  /**
   * The state to hydrate one of the service's connections with: the service's validated config
   * and tools, `secrets` (validated against its secrets schema) and id `instanceId`.
   */
  connectionState(
    row: ServiceRow,
    instanceId: string,
    secrets: Record<string, unknown>,
  ): Promise<ServiceState>;
  /**
   * Enable with rollback: regenerate when the adapter's version changed, validate, flag
   * on, hydrate; a failed hydration turns the flag off again.
   */
  enable(row: ServiceRow): Promise<void>;
  /** Replace the stored definition, keeping each surviving tool's flag (new tools enabled). */
  replace(
    row: ServiceRow,
    definition: ServiceDefinition,
    origin: DefinitionOrigin,
    enabled: boolean,
  ): Promise<void>;
  /**
   * Regenerate a service whose tools an earlier version of its (now active) adapter generated
   * (on activation): `generateDefinition` on the stored text, tools replaced keeping their flags,
   * config and secrets kept and validated by the hydration of an enabled service. A failure
   * leaves the service disabled, its `error` saying why, and is rethrown; the stored version stays
   * the old one, so the next activation tries again. True when it regenerated.
   */
  regenerate(row: ServiceRow, adapter: AdapterModule): Promise<boolean>;
  /**
   * After a config or secrets change (a new {@link generation} either way): re-hydrate an enabled
   * service, restoring the old value on failure.
   */
  rehydrate(row: ServiceRow, restore: () => Promise<void>): Promise<void>;
  /**
   * List a service's tools again (`refreshDefinition`, for adapters that discover tools live),
   * checked. It contacts the service's server, so it is called without the service's lock (a slow
   * server holds nothing up); {@link applyListing} stores what it answered, under the lock, if the
   * service's {@link generation} is still the one it was listed at. 409 `refresh_not_supported`
   * when the adapter has no hook.
   */
  listAgain(row: ServiceRow): Promise<ServiceDefinition>;
  /**
   * Store a listing of {@link listAgain} like an update of the same text; an enabled service is
   * hydrated with it. True when the tools changed.
   */
  applyListing(row: ServiceRow, definition: ServiceDefinition): Promise<boolean>;
  /**
   * Which state of the service `row` is: changes when it is hydrated, dehydrated, its settings or
   * its tools are replaced on this host, or its row changes (another host's writes). A listing
   * made at one generation is stale at another.
   */
  generation(row: ServiceRow): string;
}

/** Create the {@link ServiceLifecycle}. */
export function createServiceLifecycle(options: ServiceLifecycleOptions): ServiceLifecycle {
  const { catalog, settings, registry, logger, now, health } = options;
  // What changed each service on this host (see `generation`): counts only go up.
  const generations = new Map<string, number>();
  const bump = (id: string) => generations.set(id, (generations.get(id) ?? 0) + 1);

  const find = async (id: string): Promise<ServiceRow> => {
    const row = await catalog.getService(id);
    if (!row) throw cyrnelError('service_not_found', `service ${id} not found`);
    return row;
  };

  const activeAdapter = (adapterId: string): AdapterModule => {
    if (!registry.isKnownAdapter(adapterId))
      throw cyrnelError('invalid_request', `unknown adapter ${adapterId}`, {
        details: [{ path: 'adapter', message: 'no adapter module with this id' }],
      });
    const adapter = registry.adapter(adapterId);
    if (!adapter) throw cyrnelError('module_unavailable', `adapter ${adapterId} is not active`);
    return adapter;
  };

  // The adapter is guarded (module-guard.ts): a refusal arrives as a 400 naming the adapter.
  const generate = async (
    adapter: AdapterModule,
    adapterId: string,
    text: string,
    context?: GenerateDefinitionContext,
  ): Promise<ServiceDefinition> =>
    checkDefinition(
      await (context === undefined
        ? adapter.generateDefinition(text)
        : adapter.generateDefinition(text, context)),
      adapterId,
    );

  const dehydrate = async (row: ServiceRow): Promise<void> => {
    bump(row.id);
    await options.connections?.dropService(row.id);
    health.set(row.id, undefined);
    health.setHydrated(row.id, undefined);
    const adapter = registry.adapter(row.adapter);
    if (!adapter) return;
    await adapter.dehydrateService(row.id).catch((error: unknown) => {
      logger.warn('dehydrateService failed', { service: row.id, error: errorMessage(error) });
    });
    await options.afterHydration?.();
  };

  /** Validate config and secrets (defaults applied) and build the `ServiceState` for hydration. */
  const state = async (row: ServiceRow): Promise<ServiceState> => {
    const { config, secrets } = await settings.forSetup({ kind: 'service', id: row.id }, row);
    // The access token of a default connection signed in with OAuth: its scheme's secret.
    const tokens = (await options.connections?.defaultTokens?.(row.id)) ?? {};
    return stateWith(row, row.id, config, { ...secrets, ...tokens });
  };

  const stateWith = async (
    row: ServiceRow,
    id: string,
    config: Record<string, unknown>,
    secrets: Record<string, unknown>,
  ): Promise<ServiceState> => {
    const tools = Object.fromEntries(
      (await catalog.listServiceTools(row.id)).map((tool) => [
        tool.id,
        { adapterDomain: tool.adapterDomain },
      ]),
    );
    return { id, adapterDomain: row.adapterDomain, tools, config, secrets };
  };

  const connectionState = async (
    row: ServiceRow,
    instanceId: string,
    secrets: Record<string, unknown>,
  ): Promise<ServiceState> => {
    // The service's own secrets are not this connection's: they are not even read.
    const config = await settings.setupConfig({ kind: 'service', id: row.id }, row);
    const checked = await settings.checkSecrets(row, secrets, `secrets of connection ${instanceId}`);
    return stateWith(row, instanceId, config, checked);
  };

  // A failure arrives from the guard as a 502 naming the adapter and the service.
  const hydrate = async (row: ServiceRow, adapter: AdapterModule): Promise<void> => {
    bump(row.id);
    try {
      await adapter.hydrateService(await state(row));
      health.set(row.id, undefined);
      health.setHydrated(row.id, adapter);
      await options.connections?.refreshService(row.id);
    } catch (error) {
      health.set(row.id, errorMessage(error));
      health.setHydrated(row.id, undefined);
      throw error;
    } finally {
      await options.afterHydration?.();
    }
  };

  const replace = async (
    row: ServiceRow,
    definition: ServiceDefinition,
    origin: DefinitionOrigin,
    enabled: boolean,
  ): Promise<void> => {
    bump(row.id);
    const flags = new Map(
      (await catalog.listTools({ serviceId: row.id })).map((tool) => [tool.id, tool.enabled]),
    );
    await catalog.replaceServiceDefinition(
      row.id,
      definitionFields(definition, origin, (toolId) => flags.get(toolId) ?? true),
      enabled,
      now().toISOString(),
    );
  };

  const regenerate = async (row: ServiceRow, adapter: AdapterModule): Promise<boolean> => {
    const version = registry.adapterVersion(row.adapter) ?? null;
    if (version === null || row.adapterVersion === version) return false;
    const fail = async (error: unknown): Promise<never> => {
      const message = `regenerating the service with adapter ${row.adapter} ${version} failed: ${errorMessage(error)}`;
      await catalog.setServiceEnabled(row.id, false, now().toISOString());
      await dehydrate(row);
      health.set(row.id, message);
      logger.error('service regeneration failed', { service: row.id, error: message });
      throw cyrnelError('service_regeneration_failed', message, { cause: error });
    };
    const text = await catalog.getServiceDefinitionText(row.id);
    if (text === undefined) throw cyrnelError('service_not_found', `service ${row.id} not found`);
    let definition: ServiceDefinition;
    try {
      definition = await generate(
        adapter,
        row.adapter,
        text,
        await settings.current({ kind: 'service', id: row.id }),
      );
    } catch (error) {
      return fail(error);
    }
    await dehydrate(row);
    const origin = {
      text,
      hash: regeneratedHash(text, definition),
      source: row.source,
      registry: row.registry,
      adapterVersion: version,
    };
    await replace(row, definition, origin, row.enabled);
    logger.info('service regenerated', { service: row.id, adapter: row.adapter, version });
    const fresh = await find(row.id);
    if (!fresh.enabled) return true;
    try {
      await hydrate(fresh, adapter);
    } catch (error) {
      return fail(error);
    }
    return true;
  };

  const enable = async (row: ServiceRow): Promise<void> => {
    const adapter = activeAdapter(row.adapter);
    if (await regenerate(row, adapter)) row = await find(row.id);
    await state(row);
    await catalog.setServiceEnabled(row.id, true, now().toISOString());
    try {
      await hydrate(row, adapter);
    } catch (error) {
      await catalog.setServiceEnabled(row.id, false, now().toISOString());
      throw error;
    }
  };

  const rehydrate = async (row: ServiceRow, restore: () => Promise<void>): Promise<void> => {
    // The settings changed, whether the service is held or not: a listing made before is stale.
    bump(row.id);
    const adapter = row.enabled ? registry.adapter(row.adapter) : undefined;
    if (!adapter) return;
    try {
      await hydrate(row, adapter);
    } catch (error) {
      await restore();
      await hydrate(row, adapter).catch(() => undefined);
      throw error;
    }
  };

  const listAgain = async (row: ServiceRow): Promise<ServiceDefinition> => {
    const adapter = activeAdapter(row.adapter);
    if (!adapter.refreshDefinition)
      throw cyrnelError(
        'refresh_not_supported',
        `adapter ${row.adapter} of service ${row.id} cannot list its tools again`,
      );
    return checkDefinition(await adapter.refreshDefinition(await state(row)), row.adapter);
  };

  const applyListing = async (row: ServiceRow, definition: ServiceDefinition): Promise<boolean> => {
    const adapter = activeAdapter(row.adapter);
    const text = await catalog.getServiceDefinitionText(row.id);
    if (text === undefined) throw cyrnelError('service_not_found', `service ${row.id} not found`);
    const hash = regeneratedHash(text, definition);
    if (hash === row.hash) return false;
    const origin = {
      text,
      hash,
      source: row.source,
      registry: row.registry,
      adapterVersion: row.adapterVersion,
    };
    await replace(row, definition, origin, row.enabled);
    logger.info('service refreshed', { service: row.id, tools: definition.tools.length });
    // `hydrateService` replaces what the adapter holds: the new tools, without a teardown between.
    if (row.enabled) await hydrate(await find(row.id), adapter);
    return true;
  };

  return {
    find,
    activeAdapter,
    generate,
    dehydrate,
    hydrate,
    connectionState,
    enable,
    rehydrate,
    replace,
    regenerate,
    listAgain,
    applyListing,
    generation: (row) =>
      `${generations.get(row.id) ?? 0}\u0000${row.updatedAt}\u0000${row.hash}\u0000${row.enabled}`,
  };
}
