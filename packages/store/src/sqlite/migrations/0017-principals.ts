import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * Principals: who API keys belong to (`principals`: a person or an automation), and each key's
 * principal (`api_keys.principal_id`, a foreign key: a principal cannot be deleted while a key
 * points at it). Every key stored before gets a principal of its own, named after the key and
 * created with it, an `automation` for an agent key and a `person` otherwise — the same as a key
 * created without a principal now — so nothing is lost. Those principals take their key's id:
 * ids are unique among keys already, and the migration needs no random ids of its own.
 *
 * The column stays nullable on SQLite (adding a NOT NULL column there needs a default, and no
 * default names a real principal); the store always writes it. PostgreSQL makes it NOT NULL once
 * every row has one.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // Ids and times that lists order by sort in byte order on both databases, as the 0008 columns.
  const ordered = postgres ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable('principals')
    .addColumn('id', ordered, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('created_at', ordered, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('principals_created_at_id')
    .on('principals')
    .columns(['created_at', 'id'])
    .execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('principal_id', 'text', (c) => c.references('principals.id'))
    .execute();
  await sql`insert into principals (id, name, kind, created_at)
    select id, name, case when role = 'agent' then 'automation' else 'person' end, created_at
    from api_keys`.execute(db);
  await sql`update api_keys set principal_id = id`.execute(db);
  if (postgres) {
    await sql`alter table api_keys alter column principal_id set not null`.execute(db);
  }
  // Counting a principal's keys, and refusing its deletion while it has some, look keys up by it.
  await db.schema.createIndex('api_keys_principal_id').on('api_keys').column('principal_id').execute();
}

/** Drop what {@link up} created (the principals are lost; the keys stay). */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('api_keys_principal_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('principal_id').execute();
  await db.schema.dropIndex('principals_created_at_id').execute();
  await db.schema.dropTable('principals').execute();
}
