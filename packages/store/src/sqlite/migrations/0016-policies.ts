import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * Policies and approvals. What a tool says about itself (`tools.annotations`, JSON of the four
 * flags; `{}` for tools stored before, which said nothing); each service's policy rules
 * (`service_policies`, deleted with the service); what a key may call and how its calls differ
 * (`api_keys.scope`, `api_keys.policy`, JSON, null: every tool, the policies); the data-flow
 * labels a run accumulated and the approval it waits for (`processes.labels`,
 * `processes.approval_id`); how the policies decided each call (`process_tool_calls.decision`,
 * null for calls recorded before); and `approvals`, the calls and plans people decide.
 *
 * None of the new columns count against a key's stored bytes (the triggers of 0014 stay as they
 * are): labels are at most three known words and an approval id is fixed-size, both within the
 * fixed bytes a row counts, and a decision is written by the host and the person deciding, not
 * chosen by the agent whose quota it is.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // Ids and times that lists order by sort in byte order on both databases, as the 0008 columns.
  const ordered = postgres ? sql`text collate "C"` : sql`text`;
  await db.schema
    .alterTable('tools')
    .addColumn('annotations', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .createTable('service_policies')
    .addColumn('service_id', ordered, (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    .addColumn('policy', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('api_keys').addColumn('scope', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('policy', 'text').execute();
  await db.schema
    .alterTable('processes')
    .addColumn('labels', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('processes').addColumn('approval_id', 'text').execute();
  await db.schema.alterTable('process_tool_calls').addColumn('decision', 'text').execute();
  // No foreign key to processes: an approval outlives its process until pruned (an audit of
  // who decided what), and a plan names its process only once used.
  await db.schema
    .createTable('approvals')
    .addColumn('id', ordered, (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('process_id', 'integer')
    .addColumn('key_id', 'text')
    .addColumn('service_id', 'text')
    .addColumn('tool_id', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('parameters', 'text')
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('line', 'integer')
    .addColumn('plan', 'text')
    .addColumn('host_id', 'text')
    .addColumn('created_at', ordered, (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('note', 'text')
    .addColumn('remember', 'text')
    .execute();
  // Lists are newest first, filtered by state (the pending ones) or by process.
  await db.schema
    .createIndex('approvals_state_created')
    .on('approvals')
    .columns(['state', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('approvals_process_created')
    .on('approvals')
    .columns(['process_id', 'created_at', 'id'])
    .execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropTable('approvals').execute();
  await db.schema.alterTable('process_tool_calls').dropColumn('decision').execute();
  await db.schema.alterTable('processes').dropColumn('approval_id').execute();
  await db.schema.alterTable('processes').dropColumn('labels').execute();
  await db.schema.alterTable('api_keys').dropColumn('policy').execute();
  await db.schema.alterTable('api_keys').dropColumn('scope').execute();
  await db.schema.dropTable('service_policies').execute();
  await db.schema.alterTable('tools').dropColumn('annotations').execute();
}
