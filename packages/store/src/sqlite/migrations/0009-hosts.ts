import { type Kysely, sql } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * Several hosts on one database: each host says it is alive in `hosts` (its heartbeat),
 * and each process names the host that runs it and since when (`owner_host`, `claimed_at`), so
 * a host recovers only its own runs and those of hosts whose heartbeat went stale, never another
 * live host's. Rows of older versions have no owner: the first host to start fails them if they
 * were left running, as before. `catalog_revision` counts catalog writes: a host that sees it
 * move without its own writes re-reads the catalog (changes made on another host).
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema
    .createTable('hosts')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('heartbeat_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.alterTable('processes').addColumn('owner_host', 'text').execute();
  await db.schema.alterTable('processes').addColumn('claimed_at', 'text').execute();
  await db.schema
    .createTable('catalog_revision')
    .addColumn('id', 'integer', (column) => column.primaryKey())
    .addColumn('value', 'bigint', (column) => column.notNull())
    .execute();
  await sql`insert into catalog_revision (id, value) values (1, 0)`.execute(db);
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropTable('catalog_revision').execute();
  await db.schema.alterTable('processes').dropColumn('claimed_at').execute();
  await db.schema.alterTable('processes').dropColumn('owner_host').execute();
  await db.schema.dropTable('hosts').execute();
}
