import type { ModuleLogger } from '@cyrnel/sdk';
import {
  INSTALL_FROM_REGISTRY_BODY,
  type RegistryDocument,
  type RegistryListing,
  type RegistrySummary,
  type RegistryUpdateResult,
  type ServiceDetail,
} from '@cyrnel/sdk/api';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { type DownloadDefinitionOptions, downloadBytes } from '../definition-source/download-definition';
import { cyrnelError, isCyrnelError } from '../errors';
import { semver } from '../modules/semver-range';
import { errorMessage } from '../scoped-logger';
import { installSettings } from '../services/install-service';
import type { ServicesEngine } from '../services/services-api';
import { validateBody } from '../validation/body-schema';
import { optionalString, requireIdentifier, requireModuleId, requireString } from '../validation/input';
import {
  chooseVersion,
  identifierOf,
  metadataUrl,
  parseRegistryDocument,
  serviceEntry,
  verifySha256,
} from './registry-document';

/** How registries are reached. */
export interface RegistryAccess {
  /** The configured registries (base URLs or metadata URLs), searched in order for bare names. */
  readonly urls: readonly string[];
  /** How metadata, definitions and archives are downloaded (the outbound policy, size and time caps). */
  readonly download: DownloadDefinitionOptions;
  /** Checked against `engines.cyrnel` of every version. */
  readonly hostVersion: string;
}

/** Options of {@link createServiceRegistries}. */
export interface ServiceRegistriesOptions extends RegistryAccess {
  readonly catalog: Pick<CatalogStorage, 'listServices' | 'getService'>;
  readonly services: Pick<ServicesEngine, 'installResolved' | 'updateResolved' | 'setEnabled'>;
  readonly logger: ModuleLogger;
}

/** Registries: browsing them, installing and updating services from them. */
export interface ServiceRegistries {
  /** The configured registries, each read now. */
  list(): Promise<RegistrySummary[]>;
  /** Every service (`kind: 'services'`) or module the configured registries offer. */
  browse(kind: 'services' | 'modules'): Promise<RegistryListing[]>;
  /** `POST /services/install`: see `InstallFromRegistryRequest`. */
  installService(input: unknown): Promise<ServiceDetail>;
  /** `POST /services/:id/update`: the entry's latest version; unchanged text → `updated: false`. */
  updateService(id: unknown): Promise<RegistryUpdateResult>;
  /**
   * Update every registry-installed service (the auto-update tick): one that was enabled is enabled
   * again after a change; failures are logged (and a service that cannot be enabled stays disabled).
   */
  updateAll(): Promise<void>;
  /** Read one registry's metadata document. */
  read(url: string): Promise<{ url: string; document: RegistryDocument }>;
}

/** Create the {@link ServiceRegistries}. */
export function createServiceRegistries(options: ServiceRegistriesOptions): ServiceRegistries {
  const { download, hostVersion, logger } = options;
  const configured = options.urls.map(metadataUrl);

  const read = async (registry: string) => {
    const url = metadataUrl(registry);
    const { bytes } = await downloadBytes(url, { ...download, accept: 'application/json' });
    return { url, document: parseRegistryDocument(url, bytes) };
  };

  /** `<url>#<name>`, or a bare name looked up in the configured registries. */
  const locate = async (source: string) => {
    const hash = source.indexOf('#');
    if (hash >= 0) {
      const name = source.slice(hash + 1);
      if (name === '')
        throw cyrnelError('invalid_request', 'source must name the service after #', {
          details: [{ path: 'source', message: 'no name after #' }],
        });
      const { url, document } = await read(source.slice(0, hash));
      const entry = serviceEntry(document, name);
      if (!entry) throw cyrnelError('registry_entry_not_found', `registry ${url} has no service ${name}`);
      return { url, name, entry };
    }
    if (configured.length === 0)
      throw cyrnelError(
        'invalid_request',
        `no registry is configured: give source as <registry URL>#${source}`,
        {
          details: [{ path: 'source', message: 'no configured registry to look the name up in' }],
        },
      );
    for (const registry of configured) {
      const { url, document } = await read(registry);
      const entry = serviceEntry(document, source);
      if (entry) return { url, name: source, entry };
    }
    throw cyrnelError('registry_entry_not_found', `no configured registry has a service ${source}`);
  };

  /** Download a version's definition and check its hash. */
  const fetchDefinition = async (what: string, version: { url: string; hash: string }) => {
    const { bytes } = await downloadBytes(version.url, download);
    verifySha256(what, bytes, version.hash);
    const text = bytes.toString('utf8');
    if (text.trim() === '') throw cyrnelError('invalid_definition', `${what}: the definition is empty`);
    return text;
  };

  const updateService = async (rawId: unknown): Promise<RegistryUpdateResult> => {
    const id = requireIdentifier(rawId, 'serviceId');
    const row = await options.catalog.getService(id);
    if (!row) throw cyrnelError('service_not_found', `service ${id} not found`);
    if (!row.registry)
      throw cyrnelError(
        'not_from_registry',
        `service ${id} was installed directly: update it with PATCH /services/${id}`,
      );
    const { url, name } = row.registry;
    const { document } = await read(url);
    const entry = serviceEntry(document, name);
    if (!entry)
      throw cyrnelError('registry_entry_not_found', `registry ${url} no longer has a service ${name}`);
    const chosen = chooseVersion(`service ${name}`, entry, undefined, hostVersion);
    const text = await fetchDefinition(`service ${name} ${chosen.version}`, chosen);
    const registry = { url, name, version: chosen.version };
    return options.services.updateResolved(id, {
      text,
      source: chosen.url,
      registry,
      // Detached or reinstalled meanwhile: not ours to update.
      expect: (current) => {
        if (current.registry?.url !== url || current.registry.name !== name)
          throw cyrnelError('not_from_registry', `service ${id} changed while its update was downloaded`);
      },
    });
  };

  const browse = async (kind: 'services' | 'modules'): Promise<RegistryListing[]> => {
    const listings: RegistryListing[] = [];
    for (const registry of configured) {
      const { url, document } = await read(registry);
      for (const [name, entry] of Object.entries(document[kind] ?? {})) {
        listings.push({
          registry: url,
          name,
          description: entry.description ?? null,
          adapter: 'adapter' in entry && typeof entry.adapter === 'string' ? entry.adapter : null,
          latestVersion: entry.latestVersion,
          versions: Object.keys(entry.versions).sort((a, b) => semver().compare(a, b)),
        });
      }
    }
    return listings;
  };

  return {
    read,
    async list() {
      return Promise.all(
        configured.map(async (url): Promise<RegistrySummary> => {
          try {
            const { document } = await read(url);
            return {
              url,
              name: document.name ?? null,
              serviceCount: Object.keys(document.services ?? {}).length,
              moduleCount: Object.keys(document.modules ?? {}).length,
              error: null,
            };
          } catch (error) {
            return { url, name: null, serviceCount: null, moduleCount: null, error: errorMessage(error) };
          }
        }),
      );
    },
    browse,
    async installService(rawInput) {
      const input = validateBody<Record<string, unknown>>(rawInput, INSTALL_FROM_REGISTRY_BODY);
      const source = requireString(input.source, 'source', { nonEmpty: true });
      const version = optionalString(input.version, 'version');
      const settings = installSettings(input);
      const { url, name, entry } = await locate(source);
      const id = requireIdentifier(optionalString(input.id, 'id') ?? identifierOf(name), 'id');
      const adapter = requireModuleId(optionalString(input.adapter, 'adapter') ?? entry.adapter, 'adapter');
      const chosen = chooseVersion(`service ${name}`, entry, version, hostVersion);
      const text = await fetchDefinition(`service ${name} ${chosen.version}`, chosen);
      return options.services.installResolved({
        id,
        adapter,
        text,
        source: chosen.url,
        registry: { url, name, version: chosen.version },
        ...settings,
      });
    },
    updateService,
    async updateAll() {
      for (const row of await options.catalog.listServices({})) {
        if (!row.registry) continue;
        try {
          const result = await updateService(row.id);
          if (!result.updated) continue;
          logger.info('service updated from its registry', {
            service: row.id,
            version: result.service.registry?.version,
          });
          // An update leaves the service disabled, as every new definition does (it may ask for
          // other config or secrets); unattended, one that was enabled is enabled again, which
          // validates its config and secrets against the new schemas and hydrates it.
          if (row.enabled) await options.services.setEnabled(row.id, true);
        } catch (error) {
          const fields = { service: row.id, error: errorMessage(error) };
          if (isCyrnelError(error) && error.status < 500) logger.warn('registry update refused', fields);
          else logger.error('registry update failed', fields);
        }
      }
    },
  };
}
