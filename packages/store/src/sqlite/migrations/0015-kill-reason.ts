import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * Why a kill was asked of another host (`key_revoked` when the process's API key was deleted):
 * the owner records it as the run's `errorReason`. Null for a plain kill.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('processes').addColumn('kill_reason', 'text').execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('processes').dropColumn('kill_reason').execute();
}
