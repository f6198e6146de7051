import { DEFAULT_CONNECTION } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import type { SealedSecrets } from '../secrets/secrets-cipher';
import type { ConnectionRow, ConnectionStorage } from './connection-storage';

/** Connections by service id, then name. */
export type MemoryConnections = Map<string, Map<string, ConnectionRow>>;

/** What the memory catalog keeps of a connection besides its row: a pending state's hash, the refresh lease. */
interface Extra {
  pendingState: string | null;
  lease: { holder: string; until: string } | null;
}

const extras = new WeakMap<MemoryConnections, Map<string, Extra>>();
const extraOf = (connections: MemoryConnections, serviceId: string, name: string): Extra => {
  let all = extras.get(connections);
  if (!all) {
    all = new Map();
    extras.set(connections, all);
  }
  const key = `${serviceId}\u0000${name}`;
  let extra = all.get(key);
  if (!extra) {
    extra = { pendingState: null, lease: null };
    all.set(key, extra);
  }
  return extra;
};

const copyRow = (row: ConnectionRow): ConnectionRow => structuredClone(row);

/** A service's shared `default` connection's sealed secrets: what the service's `getSecrets` reads. */
export function defaultSecrets(connections: MemoryConnections, serviceId: string): SealedSecrets | undefined {
  const secrets = connections.get(serviceId)?.get(DEFAULT_CONNECTION)?.secrets;
  return secrets ? structuredClone(secrets) : undefined;
}

/** Write the `default` connection's secrets (made shared and connected when new), as `setSecrets` of a service does. */
export function setDefaultSecrets(
  connections: MemoryConnections,
  serviceId: string,
  secrets: SealedSecrets,
  at: string,
): void {
  let named = connections.get(serviceId);
  if (!named) {
    named = new Map();
    connections.set(serviceId, named);
  }
  const row = named.get(DEFAULT_CONNECTION);
  named.set(DEFAULT_CONNECTION, {
    serviceId,
    name: DEFAULT_CONNECTION,
    owner: null,
    status: row?.status ?? 'connected',
    statusMessage: row?.statusMessage ?? null,
    secrets: structuredClone(secrets),
    oauth: row?.oauth ?? null,
    createdAt: row?.createdAt ?? at,
    updatedAt: at,
  });
}

/** The connection methods of the in-memory catalog; `exists` says whether a service is stored. */
export function memoryConnectionMethods(
  connections: MemoryConnections,
  exists: (serviceId: string) => boolean,
): ConnectionStorage {
  return {
    listConnections: async (serviceId) =>
      [...(connections.get(serviceId)?.values() ?? [])]
        .sort((a, b) =>
          a.createdAt === b.createdAt ? (a.name < b.name ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
        )
        .map(copyRow),
    async getConnection(serviceId, name) {
      const row = connections.get(serviceId)?.get(name);
      return row && copyRow(row);
    },
    async insertConnection(row) {
      if (!exists(row.serviceId))
        throw cyrnelError('service_not_found', `service ${row.serviceId} not found`);
      let named = connections.get(row.serviceId);
      if (!named) {
        named = new Map();
        connections.set(row.serviceId, named);
      }
      if (named.has(row.name))
        throw cyrnelError(
          'connection_exists',
          `service ${row.serviceId} already has a connection named ${row.name}`,
        );
      named.set(row.name, copyRow(row));
      Object.assign(extraOf(connections, row.serviceId, row.name), { pendingState: null, lease: null });
    },
    async updateConnection(serviceId, name, change) {
      const named = connections.get(serviceId);
      const row = named?.get(name);
      if (!named || !row) return false;
      const { pendingState, ...fields } = change;
      if (pendingState !== undefined) extraOf(connections, serviceId, name).pendingState = pendingState;
      named.set(name, copyRow({ ...row, ...fields }));
      return true;
    },
    async deleteConnection(serviceId, name) {
      return connections.get(serviceId)?.delete(name) ?? false;
    },
    async findPendingAuthorization(stateHash) {
      for (const [serviceId, named] of connections)
        for (const [name, row] of named)
          if (extraOf(connections, serviceId, name).pendingState === stateHash) return copyRow(row);
      return undefined;
    },
    async claimPendingAuthorization(serviceId, name, stateHash) {
      if (!connections.get(serviceId)?.has(name)) return false;
      const extra = extraOf(connections, serviceId, name);
      if (extra.pendingState !== stateHash) return false;
      extra.pendingState = null;
      return true;
    },
    async leaseConnection(serviceId, name, holder, until, now) {
      if (!connections.get(serviceId)?.has(name)) return false;
      const extra = extraOf(connections, serviceId, name);
      if (extra.lease && extra.lease.holder !== holder && extra.lease.until > now) return false;
      extra.lease = { holder, until };
      return true;
    },
    async releaseConnectionLease(serviceId, name, holder) {
      const extra = extraOf(connections, serviceId, name);
      if (extra.lease?.holder === holder) extra.lease = null;
    },
  };
}
