import { type Kysely, sql } from 'kysely';

/** The text columns lists and cursors order by: byte order (`COLLATE "C"`), as on SQLite. */
const ORDERED: readonly [string, string][] = [
  ['modules', 'id'],
  ['services', 'id'],
  ['services', 'adapter'],
  ['tools', 'service_id'],
  ['tools', 'id'],
  ['api_keys', 'id'],
  ['api_keys', 'created_at'],
  ['processes', 'ref'],
  ['processes', 'key_id'],
];

/**
 * PostgreSQL only: ids sort the same on both databases whatever the database's own collation,
 * so list order and cursors agree.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  for (const [table, column] of ORDERED)
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type text collate "C"`.execute(
      db,
    );
}

/** Back to the database's collation. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  for (const [table, column] of ORDERED)
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type text collate "default"`.execute(
      db,
    );
}
