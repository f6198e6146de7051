import type { Kysely } from 'kysely';

const CONFIG_TABLES = { module_config: 'modules', service_config: 'services' } as const;
const SECRETS_TABLES = { module_secrets: 'modules', service_secrets: 'services' } as const;

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/** Modules, services, tools and their config and encrypted secrets. */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema
    .createTable('modules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('is_builtin', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('missing', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('services')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('adapter', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('config_schema', 'text', (c) => c.notNull())
    .addColumn('secrets_schema', 'text', (c) => c.notNull())
    .addColumn('adapter_domain', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('services_adapter_id').on('services').columns(['adapter', 'id']).execute();
  await db.schema
    .createTable('tools')
    .addColumn('service_id', 'text', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('input_schema', 'text', (c) => c.notNull())
    .addColumn('output_schema', 'text', (c) => c.notNull())
    .addColumn('adapter_domain', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tools_pk', ['service_id', 'id'])
    .execute();
  for (const [table, owner] of Object.entries(CONFIG_TABLES)) {
    await db.schema
      .createTable(table)
      .addColumn('owner_id', 'text', (c) => c.primaryKey().references(`${owner}.id`).onDelete('cascade'))
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  }
  for (const [table, owner] of Object.entries(SECRETS_TABLES)) {
    await db.schema
      .createTable(table)
      .addColumn('owner_id', 'text', (c) => c.primaryKey().references(`${owner}.id`).onDelete('cascade'))
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('iv', 'text', (c) => c.notNull())
      .addColumn('tag', 'text', (c) => c.notNull())
      .addColumn('ciphertext', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  }
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  for (const table of [
    ...Object.keys(SECRETS_TABLES),
    ...Object.keys(CONFIG_TABLES),
    'tools',
    'services',
    'modules',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
