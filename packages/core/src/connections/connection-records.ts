import {
  type ConnectionOAuth,
  type ConnectionRecord,
  DEFAULT_CONNECTION,
  MAX_CONNECTION_NAME_LENGTH,
} from '@cyrnel/sdk/api';
import type { ConnectionRow } from '../catalog/connection-storage';
import { cyrnelError } from '../errors';
import { presentPointers } from '../json/json-pointer';
import type { SecretsVault } from '../secrets/secrets-vault';

/** What a connection's name may be: a lowercase letter, then lowercase letters, digits, `-` and `_`. */
export const CONNECTION_NAME = new RegExp(`^[a-z][a-z0-9_-]{0,${MAX_CONNECTION_NAME_LENGTH - 1}}$`);

/** Who asks: the principal of the key (null without one) and whether the key is an admin's. */
export interface ConnectionCaller {
  readonly principalId: string | null;
  readonly admin: boolean;
}

/**
 * The additional data a connection's secrets are sealed with: the `default` connection's are the
 * service's (as they were before connections existed), another's name the service and itself, so
 * a ciphertext copied to another row or service fails to open.
 *
 * @example
 * ```ts
 * connectionContext('github', 'default'); // 'service:github'
 * connectionContext('github', 'work'); // 'service:github/connection:work'
 * ```
 */
export function connectionContext(serviceId: string, name: string): string {
  return name === DEFAULT_CONNECTION ? `service:${serviceId}` : `service:${serviceId}/connection:${name}`;
}

/**
 * The id a connection's adapter state is hydrated under: the service's own for `default`, else
 * `<service>@<connection>` (service ids are identifiers, so no service has it). Adapters treat
 * the id as opaque: each connection is a service of its own to them, holding its own secrets.
 */
export function connectionInstanceId(serviceId: string, name: string): string {
  return name === DEFAULT_CONNECTION ? serviceId : `${serviceId}@${name}`;
}

/** The service id of an adapter-facing id (`github@work` → `github`). */
export function serviceOfInstance(instanceId: string): string {
  const at = instanceId.indexOf('@');
  return at === -1 ? instanceId : instanceId.slice(0, at);
}

/** The service and connection name an adapter-facing id names (the inverse of {@link connectionInstanceId}). */
export function connectionOfInstance(instanceId: string): { serviceId: string; name: string } {
  const serviceId = serviceOfInstance(instanceId);
  return {
    serviceId,
    name: instanceId === serviceId ? DEFAULT_CONNECTION : instanceId.slice(serviceId.length + 1),
  };
}

/** The error of a connection that does not exist (or was deleted meanwhile): 404 `connection_not_found`. */
export function connectionNotFound(serviceId: string, name: string): Error {
  return cyrnelError('connection_not_found', `service ${serviceId} has no connection named ${name}`);
}

/** Check a connection name from a request: 400 `invalid_request` naming `path`. */
export function requireConnectionName(value: unknown, path: string): string {
  if (typeof value !== 'string' || !CONNECTION_NAME.test(value))
    throw cyrnelError(
      'invalid_request',
      `${path} must be a connection name: a lowercase letter, then lowercase letters, digits, - or _ (at most ${MAX_CONNECTION_NAME_LENGTH})`,
      { details: [{ path, message: 'must be a connection name' }] },
    );
  return value;
}

/** Whether `caller` may see and use `row`: its own, a shared one, or any for an admin key. */
export function visibleTo(row: ConnectionRow, caller: ConnectionCaller): boolean {
  return caller.admin || row.owner === null || row.owner === caller.principalId;
}

/** Open a connection's secrets (empty when none are set). */
export function openConnection(vault: SecretsVault, row: ConnectionRow): Record<string, unknown> {
  return row.secrets ? vault.openAs(connectionContext(row.serviceId, row.name), row.secrets).value : {};
}

/**
 * The wire record of a connection row: which secrets are set, never their values, and the public
 * summary of its OAuth state (`oauthSummary`), never a token.
 */
export function connectionRecord(
  vault: SecretsVault,
  row: ConnectionRow,
  oauth: ConnectionOAuth | null = null,
): ConnectionRecord {
  const { serviceId, name, owner, status, statusMessage, createdAt, updatedAt } = row;
  return {
    serviceId,
    name,
    owner,
    status,
    statusMessage,
    secrets: presentPointers(openConnection(vault, row)),
    oauth,
    createdAt,
    updatedAt,
  };
}
