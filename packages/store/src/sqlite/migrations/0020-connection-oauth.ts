import type { Kysely } from 'kysely';

const SEALED = ['oauth_key_id', 'oauth_iv', 'oauth_tag', 'oauth_ciphertext'] as const;

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * OAuth for connections: a connection's OAuth state (its client, the scheme and flow, its
 * tokens, a pending authorization's state and PKCE verifier) sealed like its secrets, with a
 * context of its own, in four columns that are all null when it does not sign in with OAuth;
 * `oauth_pending`, the SHA-256 of the state a pending authorization waits for (unique: the
 * callback finds the connection by it; never the state itself); and the refresh lease
 * (`oauth_lease_holder`, `oauth_lease_until`), so one host at a time refreshes a connection's
 * tokens. Existing rows get nulls: nothing changes for them.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  for (const column of [...SEALED, 'oauth_pending', 'oauth_lease_holder', 'oauth_lease_until'])
    await db.schema.alterTable('service_connections').addColumn(column, 'text').execute();
  await db.schema
    .createIndex('service_connections_oauth_pending')
    .on('service_connections')
    .column('oauth_pending')
    .unique()
    .execute();
}

/** Drop what {@link up} added (connections stay; their OAuth state and tokens are lost). */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('service_connections_oauth_pending').execute();
  for (const column of ['oauth_lease_until', 'oauth_lease_holder', 'oauth_pending', ...SEALED].reverse())
    await db.schema.alterTable('service_connections').dropColumn(column).execute();
}
