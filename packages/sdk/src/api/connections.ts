/**
 * A service's credentials, named: each connection holds one set of the service's secrets and
 * belongs to a principal (its own) or to nobody (shared by every principal). A process uses its
 * principal's own connection to a service when there is one, otherwise the shared `default`;
 * code may name another connection its principal may use.
 */

/** How a connection stands: usable, waiting for a person to authorize again, or failed. */
export const CONNECTION_STATUSES = ['connected', 'reauthorization_required', 'error'] as const;

/** The status of a connection. */
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** The name of the shared connection that holds what used to be a service's secrets. */
export const DEFAULT_CONNECTION = 'default';

/** A connection as the API shows it: never its secrets, only which are set. */
export interface ConnectionRecord {
  /** The service it is a connection to. */
  serviceId: string;
  /** Unique within the service, e.g. `default`, `work`, `alice`. */
  name: string;
  /** The principal it belongs to, or null: shared by every principal. */
  owner: string | null;
  /** `connected`, `reauthorization_required` or `error`. */
  status: ConnectionStatus;
  /** Why it is not `connected` (never a secret), else null. */
  statusMessage: string | null;
  /** JSON pointers of the secrets set (e.g. `/token`), never their values. */
  secrets: string[];
  /** ISO timestamp. */
  createdAt: string;
  /** ISO timestamp of the last change. */
  updatedAt: string;
}

/** `POST /services/:serviceId/connections`. */
export interface CreateConnectionRequest {
  /** Lowercase letters, digits, `-` and `_`, starting with a letter; up to 64 characters. */
  name: string;
  /**
   * The principal it belongs to, or null for a shared one. An admin key may name any principal
   * (default: shared); any other key makes connections of its own principal only (the default).
   */
  owner?: string | null;
  /** The secrets, checked against the service's secrets schema; stored encrypted. */
  secrets?: Record<string, unknown>;
}

/** `PATCH /services/:serviceId/connections/:name`: absent fields stay. */
export interface UpdateConnectionRequest {
  /** A new owner (admin keys only; the `default` connection stays shared). */
  owner?: string | null;
  /** The whole new set of secrets (replaces the stored one). */
  secrets?: Record<string, unknown>;
}
