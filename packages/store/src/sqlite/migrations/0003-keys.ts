import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * API keys with roles, stored as SHA-256 hashes (the database holds no usable key), and the key that
 * created each process (an agent key sees and touches only its own).
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema
    .createIndex('api_keys_created_at_id')
    .on('api_keys')
    .columns(['created_at', 'id'])
    .execute();
  // No foreign key: a deleted key's processes stay (and keep its id) for the admin to read.
  await db.schema.alterTable('processes').addColumn('key_id', 'text').execute();
  await db.schema.createIndex('processes_key_id_id').on('processes').columns(['key_id', 'id']).execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('processes_key_id_id').ifExists().execute();
  await db.schema.alterTable('processes').dropColumn('key_id').execute();
  await db.schema.dropTable('api_keys').ifExists().execute();
}
