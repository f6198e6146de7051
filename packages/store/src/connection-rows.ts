import {
  type ConnectionChange,
  type ConnectionRow,
  type ConnectionStorage,
  cyrnelError,
  type SealedSecrets,
} from '@cyrnel/core';
import { type ConnectionStatus, DEFAULT_CONNECTION } from '@cyrnel/sdk/api';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ServiceConnectionsTable } from './catalog-tables';
import type { Database } from './database';
import type { StoreDialect } from './store-dialect';

type Row = Selectable<ServiceConnectionsTable>;

/** The four sealed columns of a connection: all null when it has no secrets. */
function sealedColumns(secrets: SealedSecrets | null) {
  return {
    key_id: secrets?.keyId ?? null,
    iv: secrets?.iv ?? null,
    tag: secrets?.tag ?? null,
    ciphertext: secrets?.ciphertext ?? null,
  };
}

/** The sealed secrets of a row, or null when any of its four sealed columns is. */
function sealedOf(row: Pick<Row, 'key_id' | 'iv' | 'tag' | 'ciphertext'>): SealedSecrets | null {
  const { key_id: keyId, iv, tag, ciphertext } = row;
  return keyId === null || iv === null || tag === null || ciphertext === null
    ? null
    : { keyId, iv, tag, ciphertext };
}

/** The four sealed OAuth columns: all null when the connection has no OAuth state. */
function oauthColumns(oauth: SealedSecrets | null) {
  return {
    oauth_key_id: oauth?.keyId ?? null,
    oauth_iv: oauth?.iv ?? null,
    oauth_tag: oauth?.tag ?? null,
    oauth_ciphertext: oauth?.ciphertext ?? null,
  };
}

const oauthOf = (row: Row): SealedSecrets | null =>
  sealedOf({
    key_id: row.oauth_key_id,
    iv: row.oauth_iv,
    tag: row.oauth_tag,
    ciphertext: row.oauth_ciphertext,
  });

const toConnection = (row: Row): ConnectionRow => ({
  serviceId: row.service_id,
  name: row.name,
  owner: row.owner_id,
  status: row.status as ConnectionStatus,
  statusMessage: row.status_message,
  secrets: sealedOf(row),
  oauth: oauthOf(row),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

function toColumns(change: ConnectionChange): Updateable<ServiceConnectionsTable> {
  const columns: Updateable<ServiceConnectionsTable> = { updated_at: change.updatedAt };
  if (change.owner !== undefined) columns.owner_id = change.owner;
  if (change.status !== undefined) columns.status = change.status;
  if (change.statusMessage !== undefined) columns.status_message = change.statusMessage;
  if (change.secrets !== undefined) Object.assign(columns, sealedColumns(change.secrets));
  if (change.oauth !== undefined) Object.assign(columns, oauthColumns(change.oauth));
  if (change.pendingState !== undefined) columns.oauth_pending = change.pendingState;
  return columns;
}

/** The sealed secrets of a service's `default` connection: what `getSecrets` of the service reads. */
export async function readDefaultSecrets(
  db: Kysely<Database>,
  serviceId: string,
): Promise<SealedSecrets | undefined> {
  const row = await db
    .selectFrom('service_connections')
    .select(['key_id', 'iv', 'tag', 'ciphertext'])
    .where('service_id', '=', serviceId)
    .where('name', '=', DEFAULT_CONNECTION)
    .executeTakeFirst();
  return (row && sealedOf(row)) ?? undefined;
}

/**
 * Write a service's `default` connection's secrets, as `setSecrets` of the service does: a new
 * one is shared and `connected`, created at `at`; an existing one keeps its status and creation
 * time, and stays shared.
 */
export async function writeDefaultSecrets(
  db: Kysely<Database>,
  serviceId: string,
  secrets: SealedSecrets,
  at: string,
): Promise<void> {
  const sealed = sealedColumns(secrets);
  await db
    .insertInto('service_connections')
    .values({
      service_id: serviceId,
      name: DEFAULT_CONNECTION,
      owner_id: null,
      status: 'connected',
      status_message: null,
      ...sealed,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) =>
      oc.columns(['service_id', 'name']).doUpdateSet({ ...sealed, owner_id: null, updated_at: at }),
    )
    .execute();
}

/**
 * The connections half of the catalog port (`ConnectionStorage` of `@cyrnel/core`) over
 * `service_connections` (migration 0018). Rows go with their service and their principal by
 * cascade; `deleteService` also deletes them explicitly.
 *
 * @example
 * ```ts
 * const catalog = { ...createServiceRows(db, dialect), ...createConnectionRows(db, dialect) };
 * await catalog.insertConnection({ serviceId: 'github', name: 'work', owner: null, ... });
 * ```
 */
export function createConnectionRows(db: Kysely<Database>, dialect: StoreDialect): ConnectionStorage {
  const serviceExists = async (id: string) =>
    (await db.selectFrom('services').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  const notFound = (id: string, cause?: unknown) =>
    cyrnelError('service_not_found', `service ${id} not found`, cause === undefined ? undefined : { cause });

  return {
    async listConnections(serviceId) {
      const rows = await db
        .selectFrom('service_connections')
        .selectAll()
        .where('service_id', '=', serviceId)
        .orderBy('created_at')
        .orderBy('name')
        .execute();
      return rows.map(toConnection);
    },

    async getConnection(serviceId, name) {
      const row = await db
        .selectFrom('service_connections')
        .selectAll()
        .where('service_id', '=', serviceId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row && toConnection(row);
    },

    async insertConnection(row) {
      // Checked first too: a database whose foreign keys are not enforced would keep the row.
      if (!(await serviceExists(row.serviceId))) throw notFound(row.serviceId);
      try {
        await db
          .insertInto('service_connections')
          .values({
            service_id: row.serviceId,
            name: row.name,
            owner_id: row.owner,
            status: row.status,
            status_message: row.statusMessage,
            ...sealedColumns(row.secrets),
            ...oauthColumns(row.oauth),
            created_at: row.createdAt,
            updated_at: row.updatedAt,
          })
          .execute();
      } catch (error) {
        if (dialect.isUniqueViolation(error))
          throw cyrnelError(
            'connection_exists',
            `service ${row.serviceId} already has a connection named ${row.name}`,
            { cause: error },
          );
        // Deleted meanwhile (by another host): the foreign key refused the row.
        if (!(await serviceExists(row.serviceId))) throw notFound(row.serviceId, error);
        throw error;
      }
    },

    async updateConnection(serviceId, name, change) {
      const result = await db
        .updateTable('service_connections')
        .set(toColumns(change))
        .where('service_id', '=', serviceId)
        .where('name', '=', name)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async deleteConnection(serviceId, name) {
      const result = await db
        .deleteFrom('service_connections')
        .where('service_id', '=', serviceId)
        .where('name', '=', name)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async findPendingAuthorization(stateHash) {
      const row = await db
        .selectFrom('service_connections')
        .selectAll()
        .where('oauth_pending', '=', stateHash)
        .executeTakeFirst();
      return row && toConnection(row);
    },

    // One conditional write: of two hosts taking the same state at once, one changes the row.
    async claimPendingAuthorization(serviceId, name, stateHash) {
      const result = await db
        .updateTable('service_connections')
        .set({ oauth_pending: null })
        .where('service_id', '=', serviceId)
        .where('name', '=', name)
        .where('oauth_pending', '=', stateHash)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async leaseConnection(serviceId, name, holder, until, now) {
      const result = await db
        .updateTable('service_connections')
        .set({ oauth_lease_holder: holder, oauth_lease_until: until })
        .where('service_id', '=', serviceId)
        .where('name', '=', name)
        .where((eb) =>
          eb.or([
            eb('oauth_lease_until', 'is', null),
            eb('oauth_lease_until', '<=', now),
            eb('oauth_lease_holder', '=', holder),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async releaseConnectionLease(serviceId, name, holder) {
      await db
        .updateTable('service_connections')
        .set({ oauth_lease_holder: null, oauth_lease_until: null })
        .where('service_id', '=', serviceId)
        .where('name', '=', name)
        .where('oauth_lease_holder', '=', holder)
        .execute();
    },
  };
}
