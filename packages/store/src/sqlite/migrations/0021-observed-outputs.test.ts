import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { describeMigration } from './migration-case';

const SHAPE = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };

/** A service with a tool without an output schema, as a 0020 database holds them. */
async function fill(db: Kysely<Database>): Promise<void> {
  await sql`insert into services (id, name, description, adapter, enabled, hash, source, definition,
      config_schema, secrets_schema, adapter_domain, created_at, updated_at)
    values ('svc', 'svc', '', 'mcp', 1, 'h', null, '{}', '{}', '{}', '{}', 'then', 'then')`.execute(db);
  await sql`insert into tools (service_id, id, name, description, enabled, input_schema, output_schema,
      adapter_domain, keywords, search_id, id_words, name_words)
    values ('svc', 'add', 'add', '', 1, '{}', '{}', '{}', '[]', 1, 1, 1)`.execute(db);
}

/** After 0021 the service observes, the tool holds nothing yet, and a shape is written conditionally. */
async function expectObserved(store: Store): Promise<void> {
  const { catalog } = store;
  expect((await catalog.getService('svc'))?.observeOutputs).toBe(true);
  expect((await catalog.getTool('svc', 'add'))?.observedOutput).toBeNull();
  expect(await catalog.updateObservedOutput('svc', 'add', null, SHAPE)).toBe(true);
  expect(await catalog.updateObservedOutput('svc', 'add', null, SHAPE)).toBe(false);
  expect((await catalog.getTool('svc', 'add'))?.observedOutput).toEqual(SHAPE);
  expect(await catalog.setServiceObserveOutputs('svc', false)).toBe(true);
  expect((await catalog.getService('svc'))?.observeOutputs).toBe(false);
}

describeMigration({
  name: '0021-observed-outputs',
  previous: '0020-connection-oauth',
  title: 'gives tools a learned result shape and services the switch of it (on), and is undone by its down',
  fill,
  check: expectObserved,
  async afterDown(db, tables) {
    expect(tables).toContain('tools');
    const { rows } = await sql<Record<string, unknown>>`select * from tools`.execute(db);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0] ?? {})).not.toContain('observed_output');
    const services = await sql<Record<string, unknown>>`select * from services`.execute(db);
    expect(Object.keys(services.rows[0] ?? {})).not.toContain('observe_outputs');
  },
  async reopened(store) {
    expect((await store.catalog.getService('svc'))?.observeOutputs).toBe(true);
    expect((await store.catalog.getTool('svc', 'add'))?.observedOutput).toBeNull();
  },
});
