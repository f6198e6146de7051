import type { Kysely } from 'kysely';

// Generic over the database type: a migration sees the schema as it was, not today's tables.
/**
 * External subjects of principals: `principals.external_subject`, the OAuth identity
 * (`<issuer>#<sub>`) a principal made by signing in to `/mcp` with a token is. Nullable (principals
 * made by hand or for a key have none) and unique (one principal per identity, even when two hosts
 * see its first token at once); both databases let a unique index hold many nulls.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.alterTable('principals').addColumn('external_subject', 'text').execute();
  await db.schema
    .createIndex('principals_external_subject')
    .on('principals')
    .column('external_subject')
    .unique()
    .execute();
}

/** Drop what {@link up} added (principals stay; which identity each was is lost). */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  await db.schema.dropIndex('principals_external_subject').execute();
  await db.schema.alterTable('principals').dropColumn('external_subject').execute();
}
