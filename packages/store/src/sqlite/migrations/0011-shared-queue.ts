import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * A queue shared by the hosts of one database. `processes.needs` lists the modules a
 * run needs (`,env,adapter,`: the environment it was submitted for and the adapters of the
 * services its code names); a host claims a queued process without an owner only when it has
 * every one of them that some live host has. `hosts.modules` is what each host has, as JSON
 * (`{"id": "active" | "inactive" | "failed"}`): a module is `missing` only when no live host has it.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema
    .alterTable('processes')
    .addColumn('needs', 'text', (column) => column.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('hosts')
    .addColumn('modules', 'text', (column) => column.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .createIndex('processes_queued')
    .on('processes')
    .columns(['state', 'owner_host', 'id'])
    .execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('processes_queued').execute();
  await db.schema.alterTable('hosts').dropColumn('modules').execute();
  await db.schema.alterTable('processes').dropColumn('needs').execute();
}
