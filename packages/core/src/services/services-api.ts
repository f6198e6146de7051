import type { AdapterModule, OutboundPolicy } from '@cyrnel/sdk';
import { createConnectionOAuth } from '../connections/connection-oauth';
import { createTokenRefresher } from '../connections/connection-oauth-refresh';
import { connectionInstanceId, openConnection, serviceOfInstance } from '../connections/connection-records';
import { type ConnectionRouter, createConnectionRouter } from '../connections/connection-router';
import { type ConnectionsApi, createConnectionsApi } from '../connections/connections-api';
import type { DownloadDefinitionOptions } from '../definition-source/download-definition';
import { cyrnelError } from '../errors';
import type { ServicesApi } from '../host/host-api';
import { requireJsonPatch } from '../json/json-patch';
import { errorMessage } from '../scoped-logger';
import type { Redactor } from '../secrets/redactor';
import { createServiceResync, type ServiceResync } from '../several-hosts/service-resync';
import type { Callable } from '../tools/callable';
import { optionalBoolean, requireBoolean, requireIdentifier } from '../validation/input';
import { createHydrateAdapter } from './hydrate-adapter';
import { createServiceInstall, type ServiceInstall } from './install-service';
import { createKeyedLock } from './keyed-lock';
import { createListServices } from './list-services';
import {
  createServiceViews,
  type ServiceContext,
  type ServiceDependencies,
  serviceOwner,
} from './service-context';
import { createServiceLifecycle } from './service-lifecycle';
import { createSettings } from './settings';
import { createServiceUpdate, type ServiceUpdate } from './update-service';

/** Options of {@link createServicesApi}. */
export interface ServicesApiOptions extends ServiceDependencies {
  /** Which services are effectively enabled (their records say so). */
  readonly callable: Callable;
  /** How definitions are downloaded when the caller of `install` or `update` gives no options. */
  readonly download: DownloadDefinitionOptions;
  /** Whether a principal with this id exists (a connection's owner must). */
  readonly principalExists: (id: string) => Promise<boolean>;
  /** The catalog's revision, for what the connection router keeps per revision. */
  readonly revision?: () => number;
  /** OAuth for connections: where the host may connect, the callback URL, who holds refresh leases. */
  readonly oauth?: {
    readonly outbound: OutboundPolicy;
    readonly redirectUri: () => string | undefined;
    readonly holder: string;
    readonly redactor?: Redactor;
    /** The https URL of the host's OAuth client ID metadata document, when it has one. */
    readonly clientMetadataUrl?: () => string | undefined;
  };
}

/** The services API plus the hooks of the module registry, of service registries and of other hosts. */
export interface ServicesEngine
  extends Omit<ServicesApi, 'installFromRegistry' | 'updateFromRegistry' | 'stats'>,
    Pick<ServiceInstall, 'installResolved'>,
    Pick<ServiceUpdate, 'updateResolved'>,
    ServiceResync {
  /**
   * Hydrate every enabled service of a freshly set-up adapter, first regenerating the services an
   * earlier version of it generated (failures are logged and shown on the service).
   */
  hydrateAdapter(adapterId: string, adapter: AdapterModule): Promise<void>;
  /** An adapter reported that a service's tools changed: refresh it in the background (logged). */
  toolsChanged(serviceId: string): void;
  /** The services' named credentials. */
  readonly connections: ConnectionsApi;
  /** Which connection each call of a run uses, hydrated on this host when needed. */
  readonly router: ConnectionRouter;
}

/** Listings of a refresh that may race a change of the service before the last is made under its lock. */
const REFRESH_ATTEMPTS = 3;

/**
 * Create the services engine: install, update, enable, configure and delete services, calling
 * their adapters in a fixed order (generate, then hydrate; dehydrate before anything changes).
 */
export function createServicesApi(options: ServicesApiOptions): ServicesEngine {
  const { catalog, vault, registry, checker, logger, now, health } = options;
  const settings = createSettings(catalog, vault, now, checker);
  const lock = createKeyedLock();
  const lifecycle = createServiceLifecycle({
    catalog,
    settings,
    registry,
    logger,
    now,
    health,
    ...(options.afterHydration ? { afterHydration: options.afterHydration } : {}),
    connections: {
      refreshService: (id) => router.refreshService(id),
      dropService: (id) => router.dropService(id),
      defaultTokens: (id) => router.defaultTokens(id),
    },
  });
  const ctx: ServiceContext = {
    catalog,
    vault,
    registry,
    checker,
    logger,
    now,
    health,
    lifecycle,
    settings,
    locked: (id, task) => lock.run(`service:${id}`, task),
    views: createServiceViews(health, options.callable),
    ...(options.afterHydration ? { afterHydration: options.afterHydration } : {}),
  };
  const { locked, views } = ctx;
  const oauthOptions = options.oauth;
  const redactor = oauthOptions?.redactor;
  const refresher =
    oauthOptions &&
    createTokenRefresher({
      catalog,
      vault,
      outbound: oauthOptions.outbound,
      now,
      holder: oauthOptions.holder,
      logger,
      ...(redactor ? { redactor } : {}),
    });
  const router = createConnectionRouter({
    catalog,
    vault,
    registry,
    lifecycle,
    locked,
    logger,
    now,
    ...(refresher ? { refresher } : {}),
    ...(redactor ? { redactor } : {}),
    ...(options.afterHydration ? { afterHydration: options.afterHydration } : {}),
    ...(options.revision ? { revision: options.revision } : {}),
  });
  const connections = createConnectionsApi(ctx, {
    principalExists: options.principalExists,
    refreshInstance: (instanceId) => router.refresh(instanceId),
    ...(refresher ? { refresher } : {}),
    ...(redactor ? { redactor } : {}),
    ...(oauthOptions
      ? {
          oauth: createConnectionOAuth({
            catalog,
            vault,
            outbound: oauthOptions.outbound,
            redirectUri: oauthOptions.redirectUri,
            now,
            logger,
            ...(redactor ? { redactor } : {}),
            ...(oauthOptions.clientMetadataUrl ? { clientMetadataUrl: oauthOptions.clientMetadataUrl } : {}),
            signingAdapter: (service) => {
              const adapter = registry.adapter(service.adapter);
              return adapter?.authorization?.signsIn(service) ? adapter : undefined;
            },
            connectionState: async (service, row) =>
              lifecycle.connectionState(
                service,
                connectionInstanceId(service.id, row.name),
                openConnection(vault, row),
              ),
          }),
        }
      : {}),
  });
  const { find, dehydrate, enable, rehydrate } = lifecycle;
  const { install, installResolved } = createServiceInstall(ctx, options.download);
  const { update, updateResolved } = createServiceUpdate(ctx, options.download);
  const { resync, resyncService, activate } = createServiceResync(ctx);
  const serviceId = (id: unknown) => requireIdentifier(id, 'serviceId');

  /**
   * List a service's tools again and store them; answers the service and whether its tools
   * changed. The listing waits for the service's server, so it runs without the service's lock (a
   * slow server delays no enable, update or connection of the service); what it listed is stored
   * under the lock only if the service did not change meanwhile, else it is listed again. After
   * {@link REFRESH_ATTEMPTS} such races the last listing is made under the lock.
   */
  const refreshLocked = async (id: string) => {
    for (let attempt = 1; attempt < REFRESH_ATTEMPTS; attempt++) {
      const row = await find(id);
      const seen = lifecycle.generation(row);
      const listed = await lifecycle.listAgain(row).then(
        (definition) => ({ definition }),
        (error: unknown) => ({ error }),
      );
      const applied = await locked(id, async () => {
        const current = await find(id);
        // Changed while it was listed (disabled, updated, configured): the listing may be stale.
        if (lifecycle.generation(current) !== seen) return undefined;
        if ('error' in listed) throw listed.error;
        const changed = await lifecycle.applyListing(current, listed.definition);
        return { changed, service: views.detail(await find(id)) };
      });
      if (applied) return applied;
    }
    return locked(id, async () => {
      const row = await find(id);
      const changed = await lifecycle.applyListing(row, await lifecycle.listAgain(row));
      return { changed, service: views.detail(await find(id)) };
    });
  };

  return {
    list: createListServices(ctx),
    get: async (id) => views.detail(await find(serviceId(id))),
    install,
    update,
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
        if (row.enabled === enabled) return views.detail(row);
        if (enabled) await enable(row);
        else {
          await catalog.setServiceEnabled(id, false, now().toISOString());
          await dehydrate(row);
        }
        return views.detail(await find(id));
      });
    },
    async setObserveOutputs(rawId, rawObserve) {
      const id = serviceId(rawId);
      const observe = requireBoolean(rawObserve, 'enabled');
      return locked(id, async () => {
        const row = await find(id);
        if (row.observeOutputs === observe) return views.detail(row);
        if (!(await catalog.setServiceObserveOutputs(id, observe)))
          throw cyrnelError('service_not_found', `service ${id} not found`);
        return views.detail(await find(id));
      });
    },
    async getConfig(rawId) {
      const row = await find(serviceId(rawId));
      return settings.config(serviceOwner(row.id), row);
    },
    async patchConfig(rawId, rawPatch) {
      const patch = requireJsonPatch(rawPatch);
      const id = serviceId(rawId);
      return locked(id, async () => {
        const row = await find(id);
        const { value, restore } = await settings.patchConfig(serviceOwner(id), row, patch);
        await rehydrate(row, restore);
        return value;
      });
    },
    async getSecretsPresent(rawId) {
      const id = serviceId(rawId);
      // Locked: reading may re-encrypt a record found under a previous key.
      return locked(id, async () => {
        await find(id);
        return settings.secretsPresent(serviceOwner(id));
      });
    },
    async patchSecrets(rawId, rawPatch) {
      const patch = requireJsonPatch(rawPatch);
      const id = serviceId(rawId);
      await locked(id, async () => {
        const row = await find(id);
        const { restore } = await settings.patchSecrets(serviceOwner(id), row, patch);
        await rehydrate(row, restore);
      });
    },
    refresh: (rawId) => refreshLocked(serviceId(rawId)),
    toolsChanged(reported) {
      if (typeof reported !== 'string') return;
      // An adapter reports the id it was hydrated with: a connection's names its service.
      const id = serviceOfInstance(reported);
      refreshLocked(id).then(
        ({ changed }) => logger.info('service tools changed', { service: id, changed }),
        (error: unknown) =>
          logger.warn('service refresh after a tools change failed', {
            service: id,
            error: errorMessage(error),
          }),
      );
    },
    resync,
    resyncService,
    activate,
    hydrateAdapter: createHydrateAdapter(ctx),
    connections,
    router,
  };
}
