import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/** The schemas a service's tools share (`ServiceDefinition.schemas`), kept once per service. */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  // JSON text of the object; NULL for a service without shared schemas.
  await db.schema.alterTable('services').addColumn('schemas', 'text').execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('services').dropColumn('schemas').execute();
}
