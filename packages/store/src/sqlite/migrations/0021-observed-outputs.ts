import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * Observed output shapes: `tools.observed_output`, the JSON text of the shape learned from the
 * results of a tool that declares no output schema (types only; null until something was
 * learned), and `services.observe_outputs`, the operator's switch of that learning (1 by default:
 * existing services learn too, and start with nothing learned). Text, not `jsonb`: hosts write it
 * with a conditional update on the exact text they read.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('tools').addColumn('observed_output', 'text').execute();
  await db.schema
    .alterTable('services')
    .addColumn('observe_outputs', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

/** Drop what {@link up} added (what was learned is lost; it is learned again after an upgrade). */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('services').dropColumn('observe_outputs').execute();
  await db.schema.alterTable('tools').dropColumn('observed_output').execute();
}
