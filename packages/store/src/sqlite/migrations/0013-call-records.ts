import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * Tool calls recorded when they start, not when their run ends: `call_index` is a call's position
 * among its run's calls (the key its end completes; null for calls stored before), `pending` is 1
 * from its start until its answer (a host killed in between leaves it so: an interrupted call).
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('process_tool_calls').addColumn('call_index', 'integer').execute();
  await db.schema
    .alterTable('process_tool_calls')
    .addColumn('pending', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('process_tool_calls_call_index')
    .on('process_tool_calls')
    .columns(['process_id', 'call_index'])
    .unique()
    .execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('process_tool_calls_call_index').execute();
  await db.schema.alterTable('process_tool_calls').dropColumn('pending').execute();
  await db.schema.alterTable('process_tool_calls').dropColumn('call_index').execute();
}
