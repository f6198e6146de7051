import { CALL_ROW_BYTES, storedProcessBytes } from '@cyrnel/core';
import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { describeMigration } from './migration-case';

/** A service with a tool, a key, a process of it with a call: what a 0015 database holds. */
async function fill(db: Kysely<Database>): Promise<void> {
  await sql`insert into services (id, name, description, adapter, enabled, hash, source, definition,
      config_schema, secrets_schema, adapter_domain, created_at, updated_at)
    values ('svc', 'Svc', '', 'openapi', 1, 'h', null, '{}', '{}', '{}', '{}', 'now', 'now')`.execute(db);
  await sql`insert into tools (service_id, id, name, description, enabled, input_schema, output_schema,
      adapter_domain, keywords, search_id, id_words, name_words)
    values ('svc', 'get', 'Get', '', 1, '{}', '{}', '{}', '[]', 1, 1, 1)`.execute(db);
  await sql`insert into api_keys (id, name, role, hash, prefix, created_at, last_used_at)
    values ('k1', 'agent', 'agent', ${'f'.repeat(64)}, 'cyk_f', 'now', null)`.execute(db);
  await sql`insert into processes (key_id, code, state, stdout, created_at, updated_at)
    values ('k1', 'ç', 'idle', 'out', 'now', 'now')`.execute(db);
  await sql`insert into process_tool_calls (process_id, service_id, tool_id, started_at, duration_ms, ok,
      call_index, pending)
    values (1, 'svc', 'get', 'now', 1, 1, 0, 0)`.execute(db);
}

/** What the rows of {@link fill} read back as after 0016, and that the new columns write. */
async function expectDefaults(store: Store): Promise<void> {
  expect((await store.catalog.getTool('svc', 'get'))?.annotations).toEqual({});
  expect((await store.catalog.listTools({})).map((tool) => tool.annotations)).toEqual([{}]);
  expect((await store.catalog.listServiceTools('svc')).map((tool) => tool.annotations)).toEqual([{}]);
  expect(await store.catalog.getServicePolicy('svc')).toEqual({});
  expect(await store.keys.get('k1')).toMatchObject({ role: 'agent', scope: null, policy: null });
  expect(await store.processes.get(1)).toMatchObject({ state: 'idle', labels: [], approvalId: null });
  expect(await store.processes.calls(1)).toEqual([
    expect.objectContaining({ toolId: 'get', decision: null }),
  ]);
  expect(await store.approvals.listApprovals({ limit: 5 })).toEqual([]);

  // Labels and the awaited approval count nothing, as in `storedProcessBytes`.
  const bytes = storedProcessBytes({ code: 'ç', envConfig: '{}', output: '{}', stdout: 'out', stderr: '' });
  const usage = { storedBytes: bytes + CALL_ROW_BYTES, processes: 1 };
  expect(await store.processes.keyUsage('k1')).toEqual(usage);
  await store.processes.update(1, {
    state: 'waiting',
    labels: ['private', 'untrusted'],
    approvalId: 'ap1',
    updatedAt: 'later',
  });
  expect(await store.processes.get(1)).toMatchObject({ labels: ['private', 'untrusted'], approvalId: 'ap1' });
  expect(await store.processes.keyUsage('k1')).toEqual(usage);
  expect(await store.catalog.setServicePolicy('svc', { default: 'ask' }, 'later')).toBe(true);
}

describeMigration({
  name: '0016-policies',
  previous: '0015-kill-reason',
  title: 'reads what a 0015 database holds with the defaults, and is undone by its down',
  fill,
  check: expectDefaults,
  async afterDown(_db, tables) {
    expect(tables).not.toContain('approvals');
    expect(tables).not.toContain('service_policies');
  },
  async reopened(store) {
    expect(await store.processes.get(1)).toMatchObject({ labels: [], approvalId: null });
  },
});
