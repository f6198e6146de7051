import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * What a process row counts against its key, as an SQL expression over `row` (`new` or `old`):
 * the rule of `storedProcessBytes` in `@cyrnel/core` (256 bytes a row plus the UTF-8 bytes of
 * its code, envConfig, output, stdout and stderr). Written here as it was when this migration was
 * made: a migration never changes.
 */
const rowBytes = (row: string) =>
  `(256 + octet_length(${row}.code) + octet_length(${row}.env_config) + octet_length(${row}.output)` +
  ` + octet_length(${row}.stdout) + octet_length(${row}.stderr))`;

/** What one tool call counts (`CALL_ROW_BYTES` in `@cyrnel/core`). */
const CALL_BYTES = 128;

/** The columns whose writes change a row's count. */
const MEASURED = 'code, env_config, output, stdout, stderr';

const SQLITE_TRIGGERS = [
  `create trigger key_usage_process_insert after insert on processes when new.key_id is not null begin
    insert into key_usage (key_id, stored_bytes, processes) values (new.key_id, ${rowBytes('new')}, 1)
      on conflict (key_id) do update set stored_bytes = stored_bytes + excluded.stored_bytes,
        processes = processes + 1;
  end`,
  `create trigger key_usage_process_update after update of ${MEASURED} on processes
    when new.key_id is not null begin
    update key_usage set stored_bytes = stored_bytes + ${rowBytes('new')} - ${rowBytes('old')}
      where key_id = new.key_id;
  end`,
  `create trigger key_usage_process_delete after delete on processes when old.key_id is not null begin
    update key_usage set stored_bytes = stored_bytes - ${rowBytes('old')}, processes = processes - 1
      where key_id = old.key_id;
  end`,
  `create trigger key_usage_call_insert after insert on process_tool_calls begin
    update key_usage set stored_bytes = stored_bytes + ${CALL_BYTES}
      where key_id = (select key_id from processes where id = new.process_id);
  end`,
  `create trigger key_usage_call_delete after delete on process_tool_calls begin
    update key_usage set stored_bytes = stored_bytes - ${CALL_BYTES}
      where key_id = (select key_id from processes where id = old.process_id);
  end`,
];

const POSTGRES_FUNCTIONS = [
  `create function key_usage_process() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      insert into key_usage (key_id, stored_bytes, processes) values (new.key_id, ${rowBytes('new')}, 1)
        on conflict (key_id) do update set stored_bytes = key_usage.stored_bytes + excluded.stored_bytes,
          processes = key_usage.processes + 1;
    elsif tg_op = 'UPDATE' then
      update key_usage set stored_bytes = stored_bytes + ${rowBytes('new')} - ${rowBytes('old')}
        where key_id = new.key_id;
    else
      update key_usage set stored_bytes = stored_bytes - ${rowBytes('old')}, processes = processes - 1
        where key_id = old.key_id;
    end if;
    return null;
  end $$`,
  `create function key_usage_call() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      update key_usage set stored_bytes = stored_bytes + ${CALL_BYTES}
        where key_id = (select key_id from processes where id = new.process_id);
    else
      update key_usage set stored_bytes = stored_bytes - ${CALL_BYTES}
        where key_id = (select key_id from processes where id = old.process_id);
    end if;
    return null;
  end $$`,
  `create trigger key_usage_process_insert after insert on processes
    for each row when (new.key_id is not null) execute function key_usage_process()`,
  `create trigger key_usage_process_update after update of ${MEASURED} on processes
    for each row when (new.key_id is not null) execute function key_usage_process()`,
  `create trigger key_usage_process_delete after delete on processes
    for each row when (old.key_id is not null) execute function key_usage_process()`,
  `create trigger key_usage_call_insert after insert on process_tool_calls
    for each row execute function key_usage_call()`,
  `create trigger key_usage_call_delete after delete on process_tool_calls
    for each row execute function key_usage_call()`,
];

/**
 * Per-key totals of what process records hold, for the stored-bytes quota and retention by
 * count: `key_usage` (bytes and processes of each key that created processes), kept by
 * triggers on every write of `processes` and `process_tool_calls` (whatever writes them), and
 * counted once here from the rows a database already holds. And `processes_idle_updated`, the
 * index retention by age reads.
 */
export async function up<Database>(db: Kysely<Database>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('key_usage')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('stored_bytes', postgres ? 'bigint' : 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('processes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql
    .raw(
      `insert into key_usage (key_id, stored_bytes, processes)
      select p.key_id, sum(${rowBytes('p')}) + ${CALL_BYTES} * coalesce(sum(c.calls), 0), count(*)
      from processes p left join (select process_id, count(*) as calls from process_tool_calls
        group by process_id) c on c.process_id = p.id
      where p.key_id is not null group by p.key_id`,
    )
    .execute(db);
  for (const statement of postgres ? POSTGRES_FUNCTIONS : SQLITE_TRIGGERS)
    await sql.raw(statement).execute(db);
  await db.schema
    .createIndex('processes_idle_updated')
    .on('processes')
    .columns(['state', 'updated_at', 'id'])
    .execute();
}

/** Drop what {@link up} created. */
export async function down<Database>(db: Kysely<Database>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.dropIndex('processes_idle_updated').execute();
  for (const name of ['process_insert', 'process_update', 'process_delete']) {
    await sql.raw(`drop trigger key_usage_${name}${postgres ? ' on processes' : ''}`).execute(db);
  }
  for (const name of ['call_insert', 'call_delete']) {
    await sql.raw(`drop trigger key_usage_${name}${postgres ? ' on process_tool_calls' : ''}`).execute(db);
  }
  if (postgres) {
    await sql`drop function key_usage_process()`.execute(db);
    await sql`drop function key_usage_call()`.execute(db);
  }
  await db.schema.dropTable('key_usage').execute();
}
