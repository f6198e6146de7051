import type { AdapterModule } from '@cyrnel/sdk';
import { DEFAULT_CONNECTION } from '@cyrnel/sdk/api';
import type { CatalogStorage } from '../catalog/catalog-storage';
import type { ConnectionRow } from '../catalog/connection-storage';
import { revisionCache } from '../catalog/revision-cache';
import { cyrnelError } from '../errors';
import type { ModuleRegistry } from '../modules/module-registry';
import { errorMessage } from '../scoped-logger';
import type { Redactor } from '../secrets/redactor';
import type { SecretsVault } from '../secrets/secrets-vault';
import type { ServiceLifecycle } from '../services/service-lifecycle';
import { expiringSoon, obtainedBy, type TokenRefresher } from './connection-oauth-refresh';
import { openOAuthState, tokenSecrets } from './connection-oauth-state';
import {
  CONNECTION_NAME,
  connectionInstanceId,
  connectionNotFound,
  connectionOfInstance,
  openConnection,
  serviceOfInstance,
} from './connection-records';

/** Whose credentials a run's calls use: its principal and the connections its create request named. */
export interface RunCredentials {
  readonly principalId: string | null;
  readonly connections: Readonly<Record<string, string>>;
}

/**
 * Which credentials each call of a run uses. A call names a service (and maybe a connection); the
 * router answers the id the adapter knows that connection's state by, hydrating it on this host
 * first when it is not held yet: the service's own id for the shared `default` (hydrated with the
 * service), `<service>@<name>` for any other. A run never reaches a connection of another principal:
 * naming one is 403 `connection_forbidden`, whatever the path (the gate or the egress gateway) and
 * whichever host runs it, since the principal is read from the process, never from the sandbox.
 *
 * @example
 * ```ts
 * const id = await router.route({ principalId: alice, connections: {} }, 'github'); // 'github@alice-token'
 * ```
 */
export interface ConnectionRouter {
  /** The adapter-facing id of the connection this call uses (404 `connection_not_found`, 403 `connection_forbidden`). */
  route(run: RunCredentials, serviceId: string, requested?: unknown): Promise<string>;
  /** Check a create request's connections: each names an existing connection its principal may use. */
  check(run: RunCredentials): Promise<void>;
  /**
   * A connection changed or went: hydrate it again in place when held here, or drop it when its
   * row is gone (under the service's lock).
   */
  refresh(instanceId: string): Promise<void>;
  /** The service was hydrated again: so are its connections held here (under the service's lock). */
  refreshService(serviceId: string): Promise<void>;
  /** The service was dropped: so are its connections held here. */
  dropService(serviceId: string): Promise<void>;
  /**
   * The upstream refused a call made at `since` (epoch ms) with adapter state `instanceId` (HTTP
   * 401): when it signs in with OAuth, its tokens are refreshed (unless newer ones were obtained
   * since) and the state hydrated again; true then (retry the call once), false when it does not
   * sign in with OAuth. A refused refresh is 502 `upstream_unauthorized`.
   */
  reauthorize(instanceId: string, since: number): Promise<boolean>;
  /** The access token of the service's `default` connection under its scheme's name (empty without OAuth). */
  defaultTokens(serviceId: string): Promise<Record<string, string>>;
}

/** Options of {@link createConnectionRouter}. */
export interface ConnectionRouterOptions {
  readonly catalog: CatalogStorage;
  readonly vault: SecretsVault;
  readonly registry: Pick<ModuleRegistry, 'adapter'>;
  readonly lifecycle: Pick<ServiceLifecycle, 'connectionState' | 'rehydrate'>;
  /** Refreshes OAuth tokens; absent: tokens are placed as stored, never refreshed. */
  readonly refresher?: TokenRefresher;
  readonly redactor?: Redactor;
  readonly now?: () => Date;
  readonly locked: <T>(serviceId: string, task: () => Promise<T>) => Promise<T>;
  /** Awaited after a connection's state was hydrated or dropped (sandbox processes drop what they prepared). */
  readonly afterHydration?: () => Promise<void>;
  readonly logger: { warn(message: string, fields?: Record<string, unknown>): void };
  /**
   * The catalog's revision (grows with every write here, a connection's included, and every change
   * heard from another host): a service's connection rows are read once per revision for routing
   * while none of them signs in with OAuth. Absent: read on every call.
   */
  readonly revision?: () => number;
}

/** What this host hydrated for one connection: from which row version, with which adapter instance. */
interface Held {
  readonly stamp: string;
  readonly adapter: AdapterModule;
}

const forbidden = (serviceId: string, name: string) =>
  cyrnelError(
    'connection_forbidden',
    `connection ${name} of service ${serviceId} belongs to another principal`,
  );

const needsAuthorization = (row: ConnectionRow) =>
  cyrnelError(
    'upstream_unauthorized',
    `connection ${row.name} of service ${row.serviceId} needs authorizing again${row.statusMessage ? `: ${row.statusMessage}` : ''}`,
  );

/**
 * Which version of a connection row a hydration is of: its time, owner and the random IV its
 * secrets were sealed with (two writes in one millisecond still differ). Not its OAuth column's:
 * an adapter that signs in itself writes its tokens there and reads them itself.
 */
const stampOf = (row: ConnectionRow) =>
  `${row.updatedAt}\u0000${row.owner ?? ''}\u0000${row.secrets?.iv ?? ''}`;

/** Create the {@link ConnectionRouter}. */
export function createConnectionRouter(options: ConnectionRouterOptions): ConnectionRouter {
  const { catalog, vault, registry, lifecycle, locked, logger, refresher } = options;
  const now = options.now ?? (() => new Date());
  const held = new Map<string, Held>();
  // Which version of its default connection's row each service was last hydrated with here.
  const defaultStamps = new Map<string, string>();
  const oauthOf = (row: ConnectionRow) => openOAuthState(vault, options.redactor, row);
  /** A connection's secrets as its adapter state gets them: with the access token under its scheme's name. */
  const secretsOf = (row: ConnectionRow) => ({
    ...openConnection(vault, row),
    ...tokenSecrets(oauthOf(row)),
  });

  /** An OAuth connection as a call may use it: refused when it needs authorizing, refreshed when expiring. */
  const usable = async (row: ConnectionRow): Promise<ConnectionRow> => {
    if (!row.oauth) return row;
    if (row.status === 'reauthorization_required') throw needsAuthorization(row);
    return refresher ? refresher.fresh(row, expiringSoon(now)) : row;
  };

  /** The service's own state follows its OAuth default connection's row (tokens refreshed here or elsewhere). */
  const followDefault = async (row: ConnectionRow): Promise<void> => {
    if (!row.oauth || defaultStamps.get(row.serviceId) === stampOf(row)) return;
    await locked(row.serviceId, async () => {
      const current = await catalog.getConnection(row.serviceId, row.name);
      if (!current || defaultStamps.get(row.serviceId) === stampOf(current)) return;
      const service = await catalog.getService(row.serviceId);
      if (service) await lifecycle.rehydrate(service, async () => {});
    });
  };
  const connectionsOf = (serviceId: string): Promise<ConnectionRow[]> => catalog.listConnections(serviceId);
  // What a call's route reads: kept per revision, so a connection made, changed or given away
  // counts from this host's write, or from the moment it hears another host's (the egress
  // gateway's workers keep a route per execution and service until then too). OAuth rows are
  // read per call: their tokens are refreshed by whichever host needs them first.
  const keptRows = revisionCache<ConnectionRow[]>(options.revision, (rows) =>
    rows.every((row) => !row.oauth),
  );
  const routeRows = (serviceId: string) => keptRows(serviceId, () => connectionsOf(serviceId));

  /**
   * The row a call uses: the one it names (checked), else its principal's own, else the shared
   * `default`, else none (the service's own state). One read of the service's rows.
   */
  const choose = async (
    run: RunCredentials,
    serviceId: string,
    requested: unknown,
  ): Promise<ConnectionRow | undefined> => {
    if (requested !== undefined && (typeof requested !== 'string' || !CONNECTION_NAME.test(requested)))
      throw cyrnelError(
        'invalid_request',
        'a connection name is a lowercase letter, then letters, digits, - or _',
        {
          details: [{ path: 'connection', message: 'must be a connection name' }],
        },
      );
    const rows = await routeRows(serviceId);
    const name =
      requested ?? (Object.hasOwn(run.connections, serviceId) ? run.connections[serviceId] : undefined);
    if (name !== undefined) {
      const row = rows.find((candidate) => candidate.name === name);
      if (!row) throw connectionNotFound(serviceId, name);
      if (row.owner !== null && row.owner !== run.principalId) throw forbidden(serviceId, name);
      return row;
    }
    const own = run.principalId === null ? undefined : rows.find((row) => row.owner === run.principalId);
    return own ?? rows.find((row) => row.name === DEFAULT_CONNECTION);
  };

  /**
   * Hydrate `row`'s state under its own id unless this host holds that version already (`force`:
   * again in any case, the service's config or tools changed). Call it under the service's lock.
   * `hydrateService` replaces what the adapter held for the id: calls routed to it meanwhile
   * never find it missing.
   */
  const hydrateLocked = async (row: ConnectionRow, instanceId: string, force: boolean): Promise<void> => {
    const stamp = stampOf(row);
    const service = await catalog.getService(row.serviceId);
    // A disabled service or an inactive adapter: the gate refuses the call with its own reason.
    const adapter = service?.enabled ? registry.adapter(service.adapter) : undefined;
    if (!service || !adapter) return drop(instanceId);
    const known = held.get(instanceId);
    if (!force && known?.stamp === stamp && known.adapter === adapter) return;
    const state = await lifecycle.connectionState(service, instanceId, secretsOf(row));
    try {
      await adapter.hydrateService(state);
      held.set(instanceId, { stamp, adapter });
    } finally {
      await options.afterHydration?.();
    }
  };

  const drop = async (instanceId: string): Promise<void> => {
    const known = held.get(instanceId);
    if (!known) return;
    held.delete(instanceId);
    await known.adapter.dehydrateService(instanceId).catch((error: unknown) => {
      logger.warn('dehydrating a connection failed', { connection: instanceId, error: errorMessage(error) });
    });
    await options.afterHydration?.();
  };

  /** Hydrate one held connection again from its row as stored now, or drop it when the row is gone. */
  const refreshLocked = async (instanceId: string, force: boolean): Promise<void> => {
    if (!held.has(instanceId)) return;
    const serviceId = serviceOfInstance(instanceId);
    const row = (await connectionsOf(serviceId)).find(
      (candidate) => connectionInstanceId(serviceId, candidate.name) === instanceId,
    );
    if (!row) return drop(instanceId);
    await hydrateLocked(row, instanceId, force).catch(async (error: unknown) => {
      logger.warn('hydrating a connection again failed', {
        connection: instanceId,
        error: errorMessage(error),
      });
      await drop(instanceId);
    });
  };

  const heldOf = (serviceId: string) =>
    [...held.keys()].filter((id) => id !== serviceId && serviceOfInstance(id) === serviceId);

  return {
    async route(run, serviceId, requested) {
      const chosen = await choose(run, serviceId, requested);
      if (!chosen) return serviceId;
      const row = await usable(chosen);
      const instanceId = connectionInstanceId(serviceId, row.name);
      // The default connection is the service's own state, hydrated with the service.
      if (instanceId === serviceId) {
        await followDefault(row);
        return serviceId;
      }
      // Held from this version of the row: the service hydrated again refreshes its connections
      // (`refreshService`).
      if (held.get(instanceId)?.stamp !== stampOf(row))
        await locked(serviceId, () => hydrateLocked(row, instanceId, false));
      return instanceId;
    },
    async check(run) {
      for (const [serviceId, name] of Object.entries(run.connections)) await choose(run, serviceId, name);
    },
    refresh: (instanceId) => refreshLocked(instanceId, false),
    async refreshService(serviceId) {
      for (const instanceId of heldOf(serviceId)) await refreshLocked(instanceId, true);
    },
    async dropService(serviceId) {
      defaultStamps.delete(serviceId);
      for (const instanceId of heldOf(serviceId)) await drop(instanceId);
    },
    async reauthorize(instanceId, since) {
      const { serviceId, name } = connectionOfInstance(instanceId);
      const row = await catalog.getConnection(serviceId, name);
      if (!row?.oauth || !refresher) return false;
      if (row.status === 'reauthorization_required') throw needsAuthorization(row);
      const fresh = await refresher.fresh(row, obtainedBy(since));
      if (instanceId === serviceId) await followDefault(fresh);
      else await locked(serviceId, () => hydrateLocked(fresh, instanceId, false));
      return true;
    },
    async defaultTokens(serviceId) {
      const row = await catalog.getConnection(serviceId, DEFAULT_CONNECTION);
      if (!row?.oauth) {
        defaultStamps.delete(serviceId);
        return {};
      }
      defaultStamps.set(serviceId, stampOf(row));
      return tokenSecrets(oauthOf(row));
    },
  };
}
