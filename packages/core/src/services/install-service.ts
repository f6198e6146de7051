import { type RegistryOrigin, SERVICE_INSTALL_BODY, type ServiceDetail } from '@cyrnel/sdk/api';
import type { DownloadDefinitionOptions } from '../definition-source/download-definition';
import { resolveDefinition } from '../definition-source/resolve-definition';
import { cyrnelError } from '../errors';
import type { InstallServiceInput } from '../host/host-api';
import { validateBody } from '../validation/body-schema';
import { fillDefaults, stripDefaults } from '../validation/fill-defaults';
import { optionalBoolean, optionalObject, requireIdentifier, requireModuleId } from '../validation/input';
import { validateAgainstSchema } from '../validation/schema-validation';
import { definitionFields, definitionHash } from './definition-fields';
import { type ServiceContext, serviceOwner } from './service-context';
import { validateSecrets } from './validate-secrets';

/** A definition resolved by an install (downloaded or inline) or a registry, ready to install. */
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

/** The settings an install starts a service with: what every way of installing takes alike. */
export function installSettings(
  input: Record<string, unknown>,
): Pick<ResolvedInstall, 'config' | 'secrets' | 'enabled'> {
  const config = optionalObject(input.config, 'config');
  const secrets = optionalObject(input.secrets, 'secrets');
  return {
    ...(config ? { config } : {}),
    ...(secrets ? { secrets } : {}),
    enabled: optionalBoolean(input.enabled, 'enabled') ?? false,
  };
}

/** Installing services: by URL or inline definition, and (for registries) a resolved one. */
export interface ServiceInstall {
  /**
   * Validate an install request, download its `url` (with `download` over the host's options)
   * or take its `definition`, and install it.
   */
  install(input: InstallServiceInput, download?: Partial<DownloadDefinitionOptions>): Promise<ServiceDetail>;
  /** Install a checked, resolved definition (an inline or downloaded one, or a registry's). */
  installResolved(input: ResolvedInstall): Promise<ServiceDetail>;
}

/** Create the installs of the services engine; `download` is how definitions are downloaded by default. */
export function createServiceInstall(
  ctx: ServiceContext,
  download: DownloadDefinitionOptions,
): ServiceInstall {
  const { catalog, vault, registry, checker, now, lifecycle, locked, views } = ctx;
  const { find, activeAdapter, generate, dehydrate, enable } = lifecycle;

  const installResolved = async (input: ResolvedInstall): Promise<ServiceDetail> => {
    const { id, adapter: adapterId, text, config, secrets, enabled } = input;
    return locked(id, async () => {
      if (await catalog.getService(id)) throw cyrnelError('service_exists', `service ${id} already exists`);
      // The adapter may use them now (an MCP server lists its tools only with its token).
      if (secrets) vault.hold(serviceOwner(id), secrets);
      const adapter = activeAdapter(adapterId);
      const definition = await generate(adapter, adapterId, text, {
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
      const utf8 = Buffer.from(text, 'utf8');
      const origin = {
        text,
        utf8,
        hash: definitionHash(utf8, definition, adapter.refreshDefinition !== undefined),
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
        secrets: storedSecrets ? vault.seal(serviceOwner(id), storedSecrets) : null,
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
      return views.detail(await find(id));
    });
  };

  return {
    async install(rawInput, options) {
      const input = validateBody<Record<string, unknown>>(rawInput, SERVICE_INSTALL_BODY);
      // The definition is resolved (downloaded) before the other fields are checked, as the HTTP
      // API always answered: a request with several problems names the same one it always did.
      const { definition, source } = await resolveDefinition(input as { url?: string; definition?: string }, {
        ...download,
        ...options,
      });
      const settings = installSettings(input);
      return installResolved({
        id: requireIdentifier(input.id, 'id'),
        adapter: requireModuleId(input.adapter, 'adapter'),
        text: definition,
        source,
        registry: null,
        ...settings,
      });
    },
    installResolved,
  };
}
