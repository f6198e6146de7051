import type { ServiceState } from '@cyrnel/sdk';
import type { CatalogStorage, ServiceRow } from './catalog-storage';
import { fillDefaults } from './fill-defaults';
import { validateAgainstSchema } from './schema-validation';
import type { SecretsVault } from './secrets-vault';
import { validateSecrets } from './validate-secrets';
import type { SchemaChecker } from './validation/schema-checker';

/** Config, secrets and the hydration snapshot of services. */
export interface ServiceSettings {
  /** Stored config with defaults (shown as it is, not validated). */
  config(service: ServiceRow): Promise<Record<string, unknown>>;
  /** Validate config and secrets (defaults applied) and build the `ServiceState` for hydration. */
  state(service: ServiceRow): Promise<ServiceState>;
}

/** Create {@link ServiceSettings}. */
export function createServiceSettings(
  catalog: CatalogStorage,
  vault: SecretsVault,
  checker: SchemaChecker,
): ServiceSettings {
  return {
    async config(service) {
      return fillDefaults(service.configSchema, (await catalog.getServiceConfig(service.id)) ?? {});
    },
    async state(service) {
      const config = await validateAgainstSchema(
        checker,
        service.configSchema,
        (await catalog.getServiceConfig(service.id)) ?? {},
        {
          field: 'config',
          applyDefaults: true,
        },
      );
      const secrets = await validateSecrets(
        checker,
        service.secretsSchema,
        await vault.read('service', service.id),
      );
      const tools = Object.fromEntries(
        (await catalog.listServiceTools(service.id)).map((tool) => [
          tool.id,
          { adapterDomain: tool.adapterDomain },
        ]),
      );
      return { id: service.id, adapterDomain: service.adapterDomain, tools, config, secrets };
    },
  };
}
