import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * A kill asked for on one host for a process another live host runs: recorded on the
 * row, the owner looks for it several times a second and kills the run.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('processes').addColumn('kill_requested_at', 'text').execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('processes').dropColumn('kill_requested_at').execute();
}
