import { type Kysely, sql } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * The stable reason of a process's end (`ProcessRecord.errorReason`), so clients stop
 * matching the text of `error`, and of each failed tool call (`ToolCallRecord.errorReason`).
 * Processes of older versions get the reason their end implies.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('processes').addColumn('error_reason', 'text').execute();
  // Calls recorded before it keep a null reason: their code is all that was stored.
  await db.schema.alterTable('process_tool_calls').addColumn('error_reason', 'text').execute();
  await sql`update processes set error_reason = case
      when exit_state = 'timeout' then 'process_timeout'
      when exit_state = 'canceled' then 'process_killed'
      when exit_state = 'failed' and error like 'interrupted: %' then 'process_interrupted'
    end`.execute(db);
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('process_tool_calls').dropColumn('error_reason').execute();
  await db.schema.alterTable('processes').dropColumn('error_reason').execute();
}
