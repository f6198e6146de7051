import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { describeMigration } from './migration-case';

/** A queued process without an owner, as a 0021 database holds it. */
async function fill(db: Kysely<Database>): Promise<void> {
  await sql`insert into processes (ref, code, state, timeout_ms, env_config, output, stdout, stderr,
      created_at, updated_at)
    values (null, '1', 'queued', null, '{}', '{}', '', '', 'then', 'then')`.execute(db);
}

const TRACE = JSON.stringify({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });

/** After 0022 the old row is claimed without a trace context, and a new one keeps its own. */
async function expectTraceContext(store: Store): Promise<void> {
  const { processes } = store;
  const [old] = await processes.claim('host-a', 'now', { limit: 1, lacking: [] });
  expect(old?.traceContext ?? null).toBeNull();
  await processes.insert({
    ref: null,
    keyId: null,
    code: '2',
    state: 'queued',
    timeoutMs: null,
    envConfig: {},
    createdAt: 'later',
    ownerHost: null,
    traceContext: TRACE,
  });
  const [fresh] = await processes.claim('host-a', 'now', { limit: 1, lacking: [] });
  expect(fresh?.traceContext).toBe(TRACE);
}

describeMigration({
  name: '0022-trace-context',
  previous: '0021-observed-outputs',
  title: 'keeps the trace context of a queued process for the host that claims it, and is undone by its down',
  fill,
  check: expectTraceContext,
  async afterDown(db, tables) {
    expect(tables).toContain('processes');
    const { rows } = await sql<Record<string, unknown>>`select * from processes`.execute(db);
    expect(rows.length).toBeGreaterThan(0);
    expect(Object.keys(rows[0] ?? {})).not.toContain('trace_context');
  },
});
