import type { Kysely } from 'kysely';

/** The columns of a run's metrics (`ProcessRecord.metrics`) and their SQL types. */
const METRIC_COLUMNS = [
  ['metric_tool_calls', 'integer'],
  ['metric_tool_result_bytes', 'bigint'],
  ['metric_returned_bytes', 'bigint'],
  ['metric_wall_ms', 'double precision'],
  ['metric_cpu_ms', 'double precision'],
] as const;

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * The efficiency meter: a run's metrics on its process row (all null until a run ends with them;
 * runs stored before stay null), each tool call's `result_bytes` (null while in flight and for
 * calls stored before), and an index of calls by service for the sums of
 * `GET /services/:serviceId/stats`, which read the calls of one service and their runs. Bytes are
 * `bigint` (a run may read more than 2 GiB); times `double precision` (fractions of a millisecond).
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  for (const [name, type] of METRIC_COLUMNS)
    await db.schema.alterTable('processes').addColumn(name, type).execute();
  await db.schema.alterTable('process_tool_calls').addColumn('result_bytes', 'bigint').execute();
  await db.schema
    .createIndex('process_tool_calls_service')
    .on('process_tool_calls')
    .columns(['service_id', 'process_id'])
    .execute();
}

/** Drop what {@link up} added. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('process_tool_calls_service').execute();
  await db.schema.alterTable('process_tool_calls').dropColumn('result_bytes').execute();
  for (const [name] of [...METRIC_COLUMNS].reverse())
    await db.schema.alterTable('processes').dropColumn(name).execute();
}
