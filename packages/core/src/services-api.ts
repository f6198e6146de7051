import { createHash } from 'node:crypto';
import type { AdapterModule, ModuleLogger } from '@cyrnel/sdk';
import type { ServiceDetail, ServiceRecord } from '@cyrnel/sdk/api';
import { validateBody } from './body-schema';
import type { CatalogStorage, ServiceRow } from './catalog-storage';
import { cyrnelError } from './errors';
import { fillDefaults, stripDefaults } from './fill-defaults';
import type { ServicesApi } from './host';
import {
  optionalBoolean,
  optionalObject,
  optionalString,
  queryObject,
  requireIdentifier,
  requireModuleId,
  requireString,
} from './input';
import { requireJsonPatch } from './json-patch';
import { createKeyedLock } from './keyed-lock';
import type { ModuleRegistry } from './module-registry';
import { decodeCursor, pageLimit, toPage } from './page';
import { validateAgainstSchema } from './schema-validation';
import { errorMessage } from './scoped-logger';
import type { SecretsVault } from './secrets-vault';
import { createServiceHealth, type ServiceHealth } from './service-health';
import { createServiceLifecycle } from './service-lifecycle';
import { createSettings } from './settings';
import { validateSecrets } from './validate-secrets';
import type { SchemaChecker } from './validation/schema-checker';

/** The fields of `install` input (strict: any other is refused); the checks below bound their values. */
const INSTALL_INPUT = {
  id: { type: 'string', required: true },
  adapter: { type: 'string', required: true },
  definition: { type: 'string', required: true },
  source: { type: 'string', nullable: true },
  config: { type: 'object' },
  secrets: { type: 'object' },
  enabled: { type: 'boolean' },
} as const;

/** The fields of `update` input. */
const UPDATE_INPUT = {
  definition: { type: 'string', required: true },
  source: { type: 'string', nullable: true },
} as const;

/** Options of {@link createServicesApi}. */
export interface ServicesApiOptions {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  readonly registry: Pick<ModuleRegistry, 'adapter' | 'isKnownAdapter'>;
  /** Validates config and secrets off the main thread. */
  readonly checker: SchemaChecker;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** Which services this host failed to hydrate (default: a fresh one). */
  readonly health?: ServiceHealth;
}

/** The services API plus the hook the registry calls when an adapter becomes active. */
export interface ServicesEngine extends ServicesApi {
  /** Hydrate every enabled service of a freshly set-up adapter (failures are logged). */
  hydrateAdapter(adapterId: string, adapter: AdapterModule): Promise<void>;
}

/** The service record of the wire API (no schemas), with what this host knows of its hydration. */
function toServiceRecord(
  row: ServiceRow,
  health: ServiceHealth,
  isAdapterActive: (id: string) => boolean,
): ServiceRecord {
  const { id, name, description, adapter, enabled, hash, source, toolCount, createdAt, updatedAt } = row;
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

  const { find, activeAdapter, generate, dehydrate, enable, rehydrate, hydrate } = createServiceLifecycle({
    catalog,
    settings,
    registry,
    logger,
    now,
    health,
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
      const id = requireIdentifier(input.id, 'id');
      const adapterId = requireModuleId(input.adapter, 'adapter');
      const text = requireString(input.definition, 'definition', { nonEmpty: true });
      const source = input.source === null ? null : (optionalString(input.source, 'source') ?? null);
      const config = optionalObject(input.config, 'config');
      const secrets = optionalObject(input.secrets, 'secrets');
      const enabled = optionalBoolean(input.enabled, 'enabled') ?? false;
      return locked(id, async () => {
        if (await catalog.getService(id)) throw cyrnelError('service_exists', `service ${id} already exists`);
        const definition = await generate(activeAdapter(adapterId), adapterId, text);
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
        await catalog.insertService({
          id,
          adapter: adapterId,
          enabled: false,
          name: definition.name,
          description: definition.description,
          hash: createHash('sha256').update(text, 'utf8').digest('hex'),
          source,
          definition: text,
          configSchema: definition.configSchema,
          secretsSchema: definition.secretsSchema,
          adapterDomain: definition.adapterDomain,
          ...(definition.schemas ? { schemas: definition.schemas } : {}),
          tools: definition.tools.map((tool) => ({ ...tool, enabled: true })),
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
    },
    async update(rawId, rawInput) {
      const id = serviceId(rawId);
      const input = validateBody<Record<string, unknown>>(rawInput, UPDATE_INPUT);
      const text = requireString(input.definition, 'definition', { nonEmpty: true });
      const source = input.source === null ? null : optionalString(input.source, 'source');
      return locked(id, async () => {
        const row = await find(id);
        const hash = createHash('sha256').update(text, 'utf8').digest('hex');
        if (hash === row.hash) return toServiceDetail(row);
        const definition = await generate(activeAdapter(row.adapter), row.adapter, text);
        const previous = new Map(
          (await catalog.listTools({ serviceId: id })).map((tool) => [tool.id, tool.enabled]),
        );
        // Seed 001: dehydrate immediately before the new tools are inserted; the service stays disabled.
        await dehydrate(row);
        try {
          await catalog.replaceServiceDefinition(
            id,
            {
              name: definition.name,
              description: definition.description,
              hash,
              source: source === undefined ? row.source : source,
              definition: text,
              configSchema: definition.configSchema,
              secretsSchema: definition.secretsSchema,
              adapterDomain: definition.adapterDomain,
              ...(definition.schemas ? { schemas: definition.schemas } : {}),
              tools: definition.tools.map((tool) => ({ ...tool, enabled: previous.get(tool.id) ?? true })),
            },
            false,
            now().toISOString(),
          );
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
        return toServiceDetail(await find(id));
      });
    },
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
    async hydrateAdapter(adapterId, adapter) {
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
