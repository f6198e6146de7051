import type { AdapterModule, ModuleLogger } from '@cyrnel/sdk';
import type { RegistryOrigin, ServiceDetail, ServiceRecord } from '@cyrnel/sdk/api';
import type { CatalogStorage, ServiceRow } from '../catalog/catalog-storage';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import { cyrnelError } from '../errors';
import type { ServicesApi } from '../host/host-api';
import { requireJsonPatch } from '../json/json-patch';
import type { ModuleRegistry } from '../modules/module-registry';
import { errorMessage } from '../scoped-logger';
import type { SecretsVault } from '../secrets/secrets-vault';
import { validateBody } from '../validation/body-schema';
import { fillDefaults, stripDefaults } from '../validation/fill-defaults';
import {
  optionalBoolean,
  optionalObject,
  optionalString,
  queryObject,
  requireIdentifier,
  requireModuleId,
  requireString,
} from '../validation/input';
import type { SchemaChecker } from '../validation/schema-checker';
import { validateAgainstSchema } from '../validation/schema-validation';
import { createKeyedLock } from './keyed-lock';
import { createServiceHealth, type ServiceHealth } from './service-health';
import { createServiceLifecycle, definitionFields, sha256 } from './service-lifecycle';
import { createSettings } from './settings';
import { validateSecrets } from './validate-secrets';

/** The fields of `install` input (strict: any other is refused); the checks below bound their values. */
export const INSTALL_INPUT = {
  id: { type: 'string', required: true },
  adapter: { type: 'string', required: true },
  definition: { type: 'string', required: true },
  source: { type: 'string', nullable: true },
  config: { type: 'object' },
  secrets: { type: 'object' },
  enabled: { type: 'boolean' },
} as const;

/** The fields of `update` input. */
export const UPDATE_INPUT = {
  definition: { type: 'string', required: true },
  source: { type: 'string', nullable: true },
} as const;

/** Options of {@link createServicesApi}. */
export interface ServicesApiOptions {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  readonly registry: Pick<ModuleRegistry, 'adapter' | 'isKnownAdapter' | 'adapterVersion'>;
  /** Validates config and secrets off the main thread. */
  readonly checker: SchemaChecker;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** Which services this host failed to hydrate (default: a fresh one). */
  readonly health?: ServiceHealth;
  /** Awaited after a service was hydrated or dehydrated (sandbox processes drop what they prepared). */
  readonly afterHydration?: () => Promise<void>;
}

/** A definition resolved by a front end or a registry, ready to install. */
export interface ResolvedInstall {
  readonly id: string;
  readonly adapter: string;
  readonly text: string;
  readonly source: string | null;
  readonly registry: RegistryOrigin | null;
  readonly config?: Record<string, unknown>;
  readonly secrets?: Record<string, unknown>;
  readonly enabled: boolean;
}

/** A new definition text for a service; absent fields keep the stored ones. */
export interface ResolvedUpdate {
  readonly text: string;
  readonly source?: string | null;
  readonly registry?: RegistryOrigin | null;
  /** Checked on the current row under the service's lock, before anything changes; throw to refuse. */
  readonly expect?: (row: ServiceRow) => void;
}

/** The services API plus the hooks of the module registry and of service registries. */
export interface ServicesEngine extends Omit<ServicesApi, 'installFromRegistry' | 'updateFromRegistry'> {
  /**
   * Hydrate every enabled service of a freshly set-up adapter, first regenerating the services an
   * earlier version of it generated (failures are logged and shown on the service).
   */
  hydrateAdapter(adapterId: string, adapter: AdapterModule): Promise<void>;
  /**
   * The catalog changed on another host (issue 22): hydrate again every enabled service whose row,
   * config or secrets differ from what this host last hydrated, and drop the services that are
   * disabled or gone. Failures are logged and shown on the service.
   */
  resync(): Promise<void>;
  /** {@link ServicesEngine.resync} of one service, named by the host that changed it. */
  resyncService(id: string): Promise<void>;
  /** An adapter reported that a service's tools changed: refresh it in the background (logged). */
  toolsChanged(serviceId: string): void;
  /** Install a resolved definition (what `install` does after validating its input). */
  installResolved(input: ResolvedInstall): Promise<ServiceDetail>;
  /** Update with a resolved definition; `updated: false` when the text is the stored one. */
  updateResolved(id: string, input: ResolvedUpdate): Promise<{ updated: boolean; service: ServiceDetail }>;
}

/** The service record of the wire API (no schemas), with what this host knows of its hydration. */
function toServiceRecord(
  row: ServiceRow,
  health: ServiceHealth,
  isAdapterActive: (id: string) => boolean,
): ServiceRecord {
  const { id, name, description, adapter, enabled, hash, source, toolCount, createdAt, updatedAt } = row;
  const { adapterVersion, registry } = row;
  const error = health.error(id) ?? null;
  const effectivelyEnabled = enabled && error === null && isAdapterActive(adapter);
  return {
    id,
    name,
    description,
    adapter,
    enabled,
    hash,
    source,
    toolCount,
    adapterVersion,
    registry,
    effectivelyEnabled,
    error,
    createdAt,
    updatedAt,
  };
}

/** Create the services engine (SPEC §3 "Services", seeds 000/001 for the adapter call order). */
export function createServicesApi(options: ServicesApiOptions): ServicesEngine {
  const { catalog, vault, registry, checker, logger, now } = options;
  const health = options.health ?? createServiceHealth();
  const isAdapterActive = (id: string) => registry.adapter(id) !== undefined;
  const record = (row: ServiceRow) => toServiceRecord(row, health, isAdapterActive);
  const toServiceDetail = (row: ServiceRow): ServiceDetail => ({
    ...record(row),
    configSchema: row.configSchema,
    secretsSchema: row.secretsSchema,
  });
  const settings = createSettings(catalog, vault, now, checker);
  const owner = (id: string) => ({ kind: 'service', id }) as const;
  const lock = createKeyedLock();
  const locked = <T>(id: string, task: () => Promise<T>) => lock.run(`service:${id}`, task);
  // What `resync` last saw of each service (row, config, secrets), and whether it looked before.
  const synced = new Map<string, { readonly print: string; readonly adapter: string }>();
  let primed = false;

  const lifecycle = createServiceLifecycle({
    catalog,
    settings,
    registry,
    logger,
    now,
    health,
    ...(options.afterHydration ? { afterHydration: options.afterHydration } : {}),
  });
  const { find, activeAdapter, generate, dehydrate, enable, rehydrate, hydrate, replace, regenerate } =
    lifecycle;

  /** Hydrate `row` again, or drop it, when its row, config or secrets changed since the last look. */
  const resyncRow = async (row: ServiceRow): Promise<void> => {
    const adapter = registry.adapter(row.adapter);
    if (!adapter) return;
    const owner = { kind: 'service', id: row.id } as const;
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
    await options.afterHydration?.();
  };

  /** Refresh under the service's lock; answers the service and whether its tools changed. */
  const refreshLocked = (id: string) =>
    locked(id, async () => {
      const changed = await lifecycle.refresh(await find(id));
      return { changed, service: toServiceDetail(await find(id)) };
    });

  /** Install a checked, resolved definition (an inline or downloaded one, or a registry's). */
  const installResolved = async (input: ResolvedInstall): Promise<ServiceDetail> => {
    const { id, adapter: adapterId, text, config, secrets, enabled } = input;
    return locked(id, async () => {
      if (await catalog.getService(id)) throw cyrnelError('service_exists', `service ${id} already exists`);
      const definition = await generate(activeAdapter(adapterId), adapterId, text, {
        config: config ?? {},
        secrets: secrets ?? {},
      });
      // Given values must validate; absent ones are stored as defaults and checked when enabling.
      const storedConfig = config
        ? await validateAgainstSchema(checker, definition.configSchema, config, {
            field: 'config',
            applyDefaults: true,
          })
        : fillDefaults(definition.configSchema, {});
      const storedSecrets = secrets
        ? await validateSecrets(checker, definition.secretsSchema, secrets)
        : undefined;
      if (enabled) {
        // Asked to enable: a config or secrets problem is a 400 before anything is stored.
        await validateAgainstSchema(checker, definition.configSchema, storedConfig, { field: 'config' });
        await validateSecrets(checker, definition.secretsSchema, storedSecrets ?? {});
      }
      const at = now().toISOString();
      const origin = {
        text,
        hash: sha256(text),
        source: input.source,
        registry: input.registry,
        adapterVersion: registry.adapterVersion(adapterId) ?? null,
      };
      await catalog.insertService({
        ...definitionFields(definition, origin, () => true),
        id,
        adapter: adapterId,
        enabled: false,
        config: stripDefaults(definition.configSchema, storedConfig),
        secrets: storedSecrets ? vault.seal(owner(id), storedSecrets) : null,
        createdAt: at,
      });
      if (enabled) {
        const row = await find(id);
        try {
          await enable(row);
        } catch (error) {
          // A failed install stores nothing: undo it the way a delete would, so a retry can succeed.
          await dehydrate(row);
          await catalog.deleteService(id);
          throw error;
        }
      }
      return toServiceDetail(await find(id));
    });
  };

  /** Replace a service's definition; an unchanged text changes nothing (`updated: false`). */
  const updateResolved = async (
    id: string,
    input: ResolvedUpdate,
  ): Promise<{ updated: boolean; service: ServiceDetail }> =>
    locked(id, async () => {
      const row = await find(id);
      if (input.expect) input.expect(row);
      const hash = sha256(input.text);
      // A refreshed or regenerated service's hash covers its tools too: compare the texts.
      if (hash === row.hash || input.text === (await catalog.getServiceDefinitionText(id)))
        return { updated: false, service: toServiceDetail(row) };
      const definition = await generate(
        activeAdapter(row.adapter),
        row.adapter,
        input.text,
        await settings.current(owner(id)),
      );
      // Seed 001: dehydrate immediately before the new tools are inserted; the service stays disabled.
      await dehydrate(row);
      const origin = {
        text: input.text,
        hash,
        source: input.source === undefined ? row.source : input.source,
        registry: input.registry === undefined ? row.registry : input.registry,
        adapterVersion: registry.adapterVersion(row.adapter) ?? null,
      };
      try {
        await replace(row, definition, origin, false);
      } catch (error) {
        // Nothing was written: the row still says enabled, so the adapter must hold it again.
        const adapter = row.enabled ? registry.adapter(row.adapter) : undefined;
        if (adapter) {
          await hydrate(row, adapter).catch((rehydrateError: unknown) => {
            logger.error('service failed to hydrate again after a failed update', {
              service: id,
              error: errorMessage(rehydrateError),
            });
          });
        }
        throw error;
      }
      return { updated: true, service: toServiceDetail(await find(id)) };
    });

  const serviceId = (id: unknown) => requireIdentifier(id, 'serviceId');

  return {
    async list(rawQuery) {
      const query = queryObject(rawQuery);
      const limit = pageLimit(query.limit);
      const afterId = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 1)[0];
      const failed = optionalBoolean(query.failed, 'failed');
      const failures = health.failed();
      const filters = {
        query: optionalString(query.query, 'query'),
        enabled: optionalBoolean(query.enabled, 'enabled'),
        adapter: optionalString(query.adapter, 'adapter'),
      };
      let rows: ServiceRow[];
      if (failed === true) {
        // Few and in memory: read them one by one, then filter and page like the store would.
        const found = await Promise.all(failures.map((id) => catalog.getService(id)));
        const text = filters.query?.toLowerCase();
        rows = found.filter(
          (row): row is ServiceRow =>
            row !== undefined &&
            (afterId === undefined || row.id > afterId) &&
            (filters.enabled === undefined || row.enabled === filters.enabled) &&
            (filters.adapter === undefined || row.adapter === filters.adapter) &&
            (text === undefined ||
              [row.id, row.name, row.description].some((field) => field.toLowerCase().includes(text))),
        );
      } else {
        // At most `failures.length` rows are left out: ask for that many more.
        const extra = failed === false ? failures.length : 0;
        rows = await catalog.listServices({ ...filters, afterId, limit: limit + 1 + extra });
        if (failed === false) rows = rows.filter((row) => health.error(row.id) === undefined);
      }
      return toPage(rows.slice(0, limit + 1), limit, (row) => [row.id], record);
    },
    async get(id) {
      return toServiceDetail(await find(serviceId(id)));
    },
    async install(rawInput) {
      const input = validateBody<Record<string, unknown>>(rawInput, INSTALL_INPUT);
      const config = optionalObject(input.config, 'config');
      const secrets = optionalObject(input.secrets, 'secrets');
      return installResolved({
        id: requireIdentifier(input.id, 'id'),
        adapter: requireModuleId(input.adapter, 'adapter'),
        text: requireString(input.definition, 'definition', { nonEmpty: true }),
        source: input.source === null ? null : (optionalString(input.source, 'source') ?? null),
        registry: null,
        ...(config ? { config } : {}),
        ...(secrets ? { secrets } : {}),
        enabled: optionalBoolean(input.enabled, 'enabled') ?? false,
      });
    },
    async update(rawId, rawInput) {
      const id = serviceId(rawId);
      const input = validateBody<Record<string, unknown>>(rawInput, UPDATE_INPUT);
      const text = requireString(input.definition, 'definition', { nonEmpty: true });
      const source = input.source === null ? null : optionalString(input.source, 'source');
      // A definition given by hand detaches the service from its registry entry.
      return (await updateResolved(id, { text, ...(source === undefined ? {} : { source }), registry: null }))
        .service;
    },
    installResolved,
    updateResolved,
    async delete(rawId) {
      const id = serviceId(rawId);
      await locked(id, async () => {
        const row = await find(id);
        await dehydrate(row);
        await catalog.deleteService(id);
      });
    },
    async setEnabled(rawId, rawEnabled) {
      const id = serviceId(rawId);
      const enabled = optionalBoolean(rawEnabled, 'enabled');
      if (enabled === undefined)
        throw cyrnelError('invalid_request', 'enabled must be a boolean', {
          details: [{ path: 'enabled', message: 'must be a boolean' }],
        });
      return locked(id, async () => {
        const row = await find(id);
        if (row.enabled === enabled) return toServiceDetail(row);
        if (enabled) await enable(row);
        else {
          await catalog.setServiceEnabled(id, false, now().toISOString());
          await dehydrate(row);
        }
        return toServiceDetail(await find(id));
      });
    },
    async getConfig(rawId) {
      const row = await find(serviceId(rawId));
      return settings.config(owner(row.id), row);
    },
    async patchConfig(rawId, rawPatch) {
      const patch = requireJsonPatch(rawPatch);
      const id = serviceId(rawId);
      return locked(id, async () => {
        const row = await find(id);
        const { value, restore } = await settings.patchConfig(owner(id), row, patch);
        await rehydrate(row, restore);
        return value;
      });
    },
    async getSecretsPresent(rawId) {
      const id = serviceId(rawId);
      // Locked: reading may re-encrypt a record found under a previous key.
      return locked(id, async () => {
        await find(id);
        return settings.secretsPresent(owner(id));
      });
    },
    async patchSecrets(rawId, rawPatch) {
      const patch = requireJsonPatch(rawPatch);
      const id = serviceId(rawId);
      await locked(id, async () => {
        const row = await find(id);
        const { restore } = await settings.patchSecrets(owner(id), row, patch);
        await rehydrate(row, restore);
      });
    },
    refresh: (rawId) => refreshLocked(serviceId(rawId)),
    toolsChanged(id) {
      if (typeof id !== 'string') return;
      refreshLocked(id).then(
        ({ changed }) => logger.info('service tools changed', { service: id, changed }),
        (error: unknown) =>
          logger.warn('service refresh after a tools change failed', {
            service: id,
            error: errorMessage(error),
          }),
      );
    },
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
    async hydrateAdapter(adapterId, adapter) {
      const version = registry.adapterVersion(adapterId) ?? null;
      // Services an earlier version generated are regenerated first, enabled or not (issue 16).
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
    },
  };
}
