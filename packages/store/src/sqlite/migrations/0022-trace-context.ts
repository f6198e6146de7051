import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * The trace context of the request that queued a process (the core's tracing, opaque text of at
 * most a few hundred characters): the host that takes it from the shared queue continues that
 * trace. Null: none (tracing off, or stored before).
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('processes').addColumn('trace_context', 'text').execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('processes').dropColumn('trace_context').execute();
}
