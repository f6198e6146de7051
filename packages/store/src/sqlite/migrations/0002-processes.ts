import { type Kysely, PostgresAdapter } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/** Processes and the tool calls they made. */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('processes')
    .addColumn('id', postgres ? 'serial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('ref', 'text')
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('exit_state', 'text')
    .addColumn('error', 'text')
    .addColumn('timeout_ms', 'integer')
    .addColumn('env_config', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('output', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('stdout', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('stderr', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .execute();
  // List filters are each combined with `ORDER BY id DESC` and an id cursor.
  await db.schema.createIndex('processes_state_id').on('processes').columns(['state', 'id']).execute();
  await db.schema
    .createIndex('processes_exit_state_id')
    .on('processes')
    .columns(['exit_state', 'id'])
    .execute();
  await db.schema.createIndex('processes_ref_id').on('processes').columns(['ref', 'id']).execute();
  await db.schema
    .createTable('process_tool_calls')
    .addColumn('id', postgres ? 'serial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('process_id', 'integer', (c) => c.notNull().references('processes.id').onDelete('cascade'))
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('tool_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('ok', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .execute();
  await db.schema
    .createIndex('process_tool_calls_process_id')
    .on('process_tool_calls')
    .columns(['process_id', 'id'])
    .execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropTable('process_tool_calls').ifExists().execute();
  await db.schema.dropTable('processes').ifExists().execute();
}
