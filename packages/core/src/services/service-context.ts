import type { ModuleLogger } from '@cyrnel/sdk';
import type { ServiceDetail, ServiceRecord } from '@cyrnel/sdk/api';
import type { CatalogStorage, ServiceRow } from '../catalog/catalog-storage';
import type { ModuleRegistry } from '../modules/module-registry';
import type { SecretsVault } from '../secrets/secrets-vault';
import type { Callable } from '../tools/callable';
import type { SchemaChecker } from '../validation/schema-checker';
import type { ServiceHealth } from './service-health';
import type { ServiceLifecycle } from './service-lifecycle';
import type { Settings } from './settings';

/** What the services engine is given and its parts share (see `ServicesApiOptions`). */
export interface ServiceDependencies {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  readonly registry: Pick<ModuleRegistry, 'adapter' | 'isKnownAdapter' | 'adapterVersion'>;
  /** Validates config and secrets off the main thread. */
  readonly checker: SchemaChecker;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** Which services this host failed to hydrate. */
  readonly health: ServiceHealth;
  /** Awaited after a service was hydrated or dehydrated (sandbox processes drop what they prepared). */
  readonly afterHydration?: () => Promise<void>;
}

/** What the parts of the services engine share, wired by `createServicesApi`. */
export interface ServiceContext extends ServiceDependencies {
  /** The adapter calls of a service's life. */
  readonly lifecycle: ServiceLifecycle;
  readonly settings: Settings;
  /** Run `task` under the lock of service `id` (changes of one service never interleave). */
  locked<T>(id: string, task: () => Promise<T>): Promise<T>;
  /** The wire records of a service row. */
  readonly views: ServiceViews;
}

/** The wire records of a service row, with what this host knows of its hydration. */
export interface ServiceViews {
  /** The record of lists (no schemas). */
  record(row: ServiceRow): ServiceRecord;
  /** The record of `get`, with its config and secrets schemas. */
  detail(row: ServiceRow): ServiceDetail;
}

/** The settings owner of service `id`. */
export const serviceOwner = (id: string) => ({ kind: 'service', id }) as const;

/** Create the {@link ServiceViews}: `effectivelyEnabled` is the {@link Callable}'s answer. */
export function createServiceViews(health: ServiceHealth, callable: Callable): ServiceViews {
  const record = (row: ServiceRow): ServiceRecord => {
    const { id, name, description, adapter, enabled, hash, source, toolCount, createdAt, updatedAt } = row;
    const { adapterVersion, registry, observeOutputs } = row;
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
      observeOutputs,
      effectivelyEnabled: callable.service(row),
      error: health.error(id) ?? null,
      createdAt,
      updatedAt,
    };
  };
  return {
    record,
    detail: (row) => ({ ...record(row), configSchema: row.configSchema, secretsSchema: row.secretsSchema }),
  };
}
