import type { ConnectionStatus } from '@cyrnel/sdk/api';
import type { SealedSecrets } from '../secrets/secrets-cipher';

/** A connection as stored: a named, sealed set of one service's secrets and who may use it. */
export interface ConnectionRow {
  readonly serviceId: string;
  readonly name: string;
  /** The principal it belongs to, or null: shared. */
  readonly owner: string | null;
  readonly status: ConnectionStatus;
  readonly statusMessage: string | null;
  /** Sealed with the connection's own context (see `connectionContext`); null when none are set. */
  readonly secrets: SealedSecrets | null;
  /**
   * Its OAuth state (client, tokens, a pending authorization), sealed with its own context (see
   * `oauthContext`); null when it does not sign in with OAuth.
   */
  readonly oauth: SealedSecrets | null;
  /** ISO timestamps. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Fields of a connection that change; absent fields stay. */
export interface ConnectionChange {
  readonly owner?: string | null;
  readonly status?: ConnectionStatus;
  readonly statusMessage?: string | null;
  readonly secrets?: SealedSecrets | null;
  readonly oauth?: SealedSecrets | null;
  /**
   * The SHA-256 (hex) of the `state` of the authorization this connection waits for, by which the
   * callback finds it; null when none is pending.
   */
  readonly pendingState?: string | null;
  readonly updatedAt: string;
}

/**
 * The connections half of the catalog's storage. It is part of `CatalogStorage` (which extends it)
 * because a service's shared `default` connection is what `getSecrets`/`setSecrets` of the service
 * read and write, connections go with their service when it is deleted, and each write of them
 * counts as a catalog write: caches, sandbox processes and other hosts follow them as they follow
 * a service's secrets.
 */
export interface ConnectionStorage {
  /** A service's connections, ordered by creation time, then name. */
  listConnections(serviceId: string): Promise<ConnectionRow[]>;
  /** One connection, or undefined. */
  getConnection(serviceId: string, name: string): Promise<ConnectionRow | undefined>;
  /**
   * Insert a connection: 409 `connection_exists` when the service has one with this name, 404
   * `service_not_found` when the service is gone.
   */
  insertConnection(row: ConnectionRow): Promise<void>;
  /** Change a connection; false when it does not exist. */
  updateConnection(serviceId: string, name: string, change: ConnectionChange): Promise<boolean>;
  /** Delete a connection; false when it did not exist. */
  deleteConnection(serviceId: string, name: string): Promise<boolean>;
  /** The connection whose pending authorization has this state hash, or undefined. */
  findPendingAuthorization(stateHash: string): Promise<ConnectionRow | undefined>;
  /**
   * Take the pending authorization: clear the state hash only if it is still `stateHash`. True for
   * exactly one caller, whichever host it runs on (a state is used once).
   */
  claimPendingAuthorization(serviceId: string, name: string, stateHash: string): Promise<boolean>;
  /**
   * Take the connection's refresh lease for `holder` until `until` (ISO) when nobody holds one
   * that runs past `now` (or `holder` holds it): true when taken. One host refreshes at a time.
   */
  leaseConnection(
    serviceId: string,
    name: string,
    holder: string,
    until: string,
    now: string,
  ): Promise<boolean>;
  /** Give the lease back (only when `holder` holds it). */
  releaseConnectionLease(serviceId: string, name: string, holder: string): Promise<void>;
}
