import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../create-store';
import type { Database } from '../../database';
import { describeMigration } from './migration-case';

const AT = '2026-01-01T00:00:00.000Z';

/** An ended process with a call of service `svc`: what a 0021 database holds. */
async function fill(db: Kysely<Database>): Promise<void> {
  await sql`insert into processes (code, state, exit_state, stdout, created_at, updated_at, started_at, completed_at)
    values ('x', 'idle', 'success', 'out', ${AT}, ${AT}, ${AT}, ${AT})`.execute(db);
  await sql`insert into process_tool_calls (process_id, service_id, tool_id, started_at, duration_ms, ok,
      call_index, pending)
    values (1, 'svc', 'get', ${AT}, 1, 1, 0, 0)`.execute(db);
}

/** After 0023 the old run has no metrics and counts for no service; a new run's metrics count. */
async function expectMetered(store: Store): Promise<void> {
  const { processes } = store;
  expect((await processes.get(1))?.metrics).toBeNull();
  expect(await processes.calls(1)).toEqual([expect.objectContaining({ toolId: 'get', resultBytes: null })]);
  expect((await processes.serviceStats('svc')).runs).toBe(0);

  const id = await processes.insert({
    ref: null,
    keyId: null,
    code: 'y',
    state: 'queued',
    timeoutMs: null,
    envConfig: {},
    createdAt: AT,
  });
  const metrics = { toolCalls: 1, toolResultBytes: 120, returnedBytes: 7, wallMs: 3.5, cpuMs: 1.25 };
  await processes.finish(
    id,
    { state: 'idle', exitState: 'success', startedAt: AT, completedAt: AT, metrics, updatedAt: AT },
    { output: {}, stdout: 'seven!\n', stderr: '' },
    [
      {
        index: 0,
        call: {
          serviceId: 'svc',
          toolId: 'get',
          startedAt: AT,
          durationMs: 1,
          ok: true,
          errorCode: null,
          errorReason: null,
          decision: null,
          resultBytes: 120,
        },
      },
    ],
  );
  expect((await processes.get(id))?.metrics).toEqual(metrics);
  expect(await processes.serviceStats('svc')).toEqual({
    runs: 1,
    toolCalls: 1,
    toolResultBytes: 120,
    returnedBytes: 7,
    wallMs: 3.5,
    cpuMs: 1.25,
    firstRunAt: AT,
    lastRunAt: AT,
  });
}

describeMigration({
  name: '0023-process-metrics',
  previous: '0022-trace-context',
  title:
    "gives processes a run's metrics and calls their result bytes (null before), and is undone by its down",
  fill,
  check: expectMetered,
  async afterDown(db, tables) {
    expect(tables).toContain('processes');
    const processes = await sql<Record<string, unknown>>`select * from processes`.execute(db);
    expect(processes.rows).toHaveLength(2);
    expect(Object.keys(processes.rows[0] ?? {}).filter((name) => name.startsWith('metric_'))).toEqual([]);
    const calls = await sql<Record<string, unknown>>`select * from process_tool_calls`.execute(db);
    expect(Object.keys(calls.rows[0] ?? {})).not.toContain('result_bytes');
  },
  async reopened(store) {
    expect((await store.processes.get(1))?.metrics).toBeNull();
    expect((await store.processes.get(2))?.metrics).toBeNull();
  },
});
