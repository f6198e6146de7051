import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * Connections: named, sealed sets of one service's secrets, each shared (`owner_id` null) or a
 * principal's own (`service_connections`, deleted with their service and with their principal).
 * A service's secrets are its shared connection named `default` from now on, so every
 * `service_secrets` row moves there unchanged — the same sealed bytes, sealed with the same
 * context — as `default`, shared and `connected`, created and updated when the row was last
 * written; then `service_secrets` goes. A connection without secrets (one waiting for its first
 * authorization) has all four sealed columns null.
 *
 * Processes record whose connections their calls use (`processes.principal_id`, the creating
 * key's principal, null: shared ones only; no foreign key, a run outlives its principal as it
 * outlives its key) and the connection per service their create request named
 * (`processes.connections`, JSON `{ serviceId: name }`, `{}` for processes stored before).
 * Neither counts in `key_usage`: the id is fixed-size and the names are few and short (the
 * create request bounds them), within the fixed bytes a row counts.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // Ids, names and times lists order by sort in byte order on both databases, as the 0008 columns.
  const ordered = postgres ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable('service_connections')
    .addColumn('service_id', ordered, (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('name', ordered, (c) => c.notNull())
    .addColumn('owner_id', ordered, (c) => c.references('principals.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('connected'))
    .addColumn('status_message', 'text')
    .addColumn('key_id', 'text')
    .addColumn('iv', 'text')
    .addColumn('tag', 'text')
    .addColumn('ciphertext', 'text')
    .addColumn('created_at', ordered, (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('service_connections_pk', ['service_id', 'name'])
    .execute();
  // Deleting a principal deletes its connections: the cascade finds them by this index.
  await db.schema
    .createIndex('service_connections_owner_id')
    .on('service_connections')
    .column('owner_id')
    .execute();
  await sql`insert into service_connections
      (service_id, name, owner_id, status, status_message, key_id, iv, tag, ciphertext, created_at, updated_at)
    select owner_id, 'default', null, 'connected', null, key_id, iv, tag, ciphertext, updated_at, updated_at
    from service_secrets`.execute(db);
  await db.schema.dropTable('service_secrets').execute();
  await db.schema.alterTable('processes').addColumn('principal_id', 'text').execute();
  await db.schema
    .alterTable('processes')
    .addColumn('connections', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}

/**
 * Back to `service_secrets`: each service's `default` connection's secrets return there (as
 * they were sealed); the other connections, and processes' principals and connections, are lost.
 */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('processes').dropColumn('connections').execute();
  await db.schema.alterTable('processes').dropColumn('principal_id').execute();
  // The shape of 0001's table.
  await db.schema
    .createTable('service_secrets')
    .addColumn('owner_id', 'text', (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('iv', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('ciphertext', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into service_secrets (owner_id, key_id, iv, tag, ciphertext, updated_at)
    select service_id, key_id, iv, tag, ciphertext, updated_at
    from service_connections
    where name = 'default' and owner_id is null and key_id is not null`.execute(db);
  await db.schema.dropIndex('service_connections_owner_id').execute();
  await db.schema.dropTable('service_connections').execute();
}
