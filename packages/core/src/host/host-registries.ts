import type { ModuleLogger } from '@cyrnel/sdk';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { DEFAULT_DOWNLOAD_LIMITS, DEFAULT_NPM_REGISTRY } from '../definition-source/download-definition';
import type { ModuleRegistry } from '../modules/module-registry';
import { startAutoUpdate } from '../registries/auto-update';
import { createModuleInstaller, type ModuleInstaller } from '../registries/module-installer';
import {
  createServiceRegistries,
  type RegistryAccess,
  type ServiceRegistries,
} from '../registries/service-registries';
import type { ServicesEngine } from '../services/services-api';
import type { CreateHostOptions } from './host-options';

/** How the host reaches registries and downloads definitions, with every default applied. */
export function registryAccess(options: CreateHostOptions, hostVersion: string): RegistryAccess {
  const registries = options.registries ?? {};
  return {
    urls: registries.urls ?? [],
    hostVersion,
    download: {
      outbound: registries.outbound ?? options.outbound ?? { check() {} },
      maxBytes: registries.maxBytes ?? DEFAULT_DOWNLOAD_LIMITS.maxBytes,
      timeoutMs: registries.timeoutMs ?? DEFAULT_DOWNLOAD_LIMITS.timeoutMs,
    },
  };
}

/** The host's registries: browsing them, installing from them and npm, and the auto-update timer. */
export interface HostRegistries {
  readonly services: ServiceRegistries;
  readonly installer: ModuleInstaller;
  /** Stop the auto-update timer. */
  stop(): void;
}

/** Create the host's registries and start its auto-updates (when configured). */
export function createHostRegistries(
  options: CreateHostOptions,
  access: RegistryAccess,
  parts: {
    readonly catalog: CatalogStorage;
    readonly services: ServicesEngine;
    readonly registry: ModuleRegistry;
    readonly logger: ModuleLogger;
  },
): HostRegistries {
  const { catalog, services, registry, logger } = parts;
  const registryOptions = options.registries ?? {};
  const serviceRegistries = createServiceRegistries({ ...access, catalog, services, logger });
  const installer = createModuleInstaller({
    ...access,
    registry,
    registries: serviceRegistries,
    npmRegistry: registryOptions.npmRegistry ?? DEFAULT_NPM_REGISTRY,
    logger,
  });
  const autoUpdate = startAutoUpdate(registryOptions.autoUpdateIntervalMs, logger, async () => {
    await installer.updateAll();
    await serviceRegistries.updateAll();
  });
  return { services: serviceRegistries, installer, stop: () => autoUpdate.stop() };
}
