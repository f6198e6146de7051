import { join } from 'node:path';
import { newProcess } from '@cyrnel/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcessStore } from './process-store';
import { createProcessTestDatabase, type ProcessTestDatabase } from './process-test-database';
import { openSqliteStore as openCyrnelStore } from './sqlite/open-sqlite-store';

const databases: ProcessTestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((database) => database.dispose()));
});

async function openStore() {
  const database = createProcessTestDatabase();
  databases.push(database);
  const db = await database.open();
  return { store: createProcessStore(db), db, database };
}

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

describe('createProcessStore', () => {
  it('inserts, updates and finishes a process with its results and tool calls', async () => {
    const { store } = await openStore();
    const id = await store.insert(
      newProcess({
        ref: 'r',
        code: 'cyrnel.output({})',
        state: 'queued',
        timeoutMs: 500,
        envConfig: { x: [1] },
        createdAt: at(0),
      }),
    );
    expect(await store.get(id)).toEqual({
      id,
      ref: 'r',
      keyId: null,
      principalId: null,
      state: 'queued',
      exitState: null,
      error: null,
      errorReason: null,
      timeoutMs: 500,
      envConfig: { x: [1] },
      connections: {},
      createdAt: at(0),
      updatedAt: at(0),
      startedAt: null,
      completedAt: null,
      hostId: null,
      labels: [],
      approvalId: null,
      metrics: null,
    });
    expect(await store.code(id)).toBe('cyrnel.output({})');
    expect(await store.results(id)).toEqual({ output: {}, stdout: '', stderr: '' });
    await store.update(id, { state: 'running', startedAt: at(1), updatedAt: at(1) });
    const calls = Array.from({ length: 1200 }, (_, i) => ({
      serviceId: 's',
      toolId: `t${i}`,
      startedAt: at(1),
      durationMs: i,
      ok: i % 2 === 0,
      errorCode: i % 2 === 0 ? null : ('not_found' as const),
      errorReason: i % 2 === 0 ? null : ('tool_not_found' as const),
      decision:
        i % 3 === 0
          ? ({ policy: 'allow', rule: 'server-annotation', detail: 'readOnly', outcome: 'allowed' } as const)
          : null,
      resultBytes: i % 2 === 0 ? i * 1000 : 0,
    }));
    await store.finish(
      id,
      { state: 'idle', exitState: 'success', error: null, completedAt: at(2), updatedAt: at(2) },
      { output: { a: 'é' }, stdout: 'out', stderr: 'err' },
      calls.map((call, index) => ({ index, call })),
    );
    expect(await store.get(id)).toMatchObject({
      state: 'idle',
      exitState: 'success',
      startedAt: at(1),
      completedAt: at(2),
    });
    expect(await store.results(id)).toEqual({ output: { a: 'é' }, stdout: 'out', stderr: 'err' });
    expect(await store.calls(id)).toEqual(calls);
  });

  it('resets results and calls for a re-run and deletes with the calls', async () => {
    const { store, db } = await openStore();
    const id = await store.insert(newProcess({ code: 'x', state: 'queued', createdAt: at(0) }));
    const call = {
      serviceId: 's',
      toolId: 't',
      startedAt: at(0),
      durationMs: 1,
      ok: true,
      errorCode: null,
      errorReason: null,
      decision: null,
      resultBytes: 12,
    };
    await store.finish(
      id,
      { state: 'idle', exitState: 'failed', error: 'e', updatedAt: at(1) },
      { output: { k: 1 }, stdout: 'o', stderr: 'e' },
      [{ index: 0, call }],
    );
    await store.reset(id, {
      state: 'queued',
      exitState: null,
      error: null,
      startedAt: null,
      completedAt: null,
      updatedAt: at(2),
    });
    expect(await store.get(id)).toMatchObject({ state: 'queued', exitState: null, error: null });
    expect(await store.results(id)).toEqual({ output: {}, stdout: '', stderr: '' });
    expect(await store.calls(id)).toEqual([]);
    await store.finish(
      id,
      { state: 'idle', exitState: 'success', updatedAt: at(3) },
      { output: {}, stdout: '', stderr: '' },
      [{ index: 0, call }],
    );
    expect(await store.delete(id)).toBe(true);
    expect(await store.delete(id)).toBe(false);
    expect(await store.get(id)).toBeUndefined();
    expect(await store.code(id)).toBeUndefined();
    const left = await db.selectFrom('process_tool_calls').selectAll().execute();
    expect(left).toEqual([]);
  });

  it('lists newest first with filters and an id cursor', async () => {
    const { store } = await openStore();
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const id = await store.insert(
        newProcess({
          ref: i % 2 ? 'odd' : 'even',
          keyId: i % 2 ? 'odd-key' : null,
          code: 'x',
          timeoutMs: 1,
          createdAt: at(i),
        }),
      );
      if (i < 3) await store.update(id, { exitState: 'success', updatedAt: at(i) });
      ids.push(id);
    }
    expect((await store.list({ limit: 10 })).map((p) => p.id)).toEqual([...ids].reverse());
    expect((await store.list({ limit: 2, beforeId: ids[4] })).map((p) => p.id)).toEqual([ids[3], ids[2]]);
    expect((await store.list({ limit: 10, ref: 'odd' })).map((p) => p.id)).toEqual([ids[5], ids[3], ids[1]]);
    expect((await store.list({ limit: 10, exitState: 'success', ref: 'even' })).map((p) => p.id)).toEqual([
      ids[2],
      ids[0],
    ]);
    expect(await store.list({ limit: 10, state: 'running' })).toEqual([]);
    for (const item of await store.list({ limit: 10 })) expect(item).not.toHaveProperty('envConfig');
    const byKey = await store.list({ limit: 10, keyId: 'odd-key' });
    expect(byKey.map((p) => [p.id, p.keyId])).toEqual([ids[5], ids[3], ids[1]].map((id) => [id, 'odd-key']));
  });

  it('records unfinished processes as failed, leaving idle ones alone', async () => {
    const { store } = await openStore();
    const states = ['queued', 'running', 'terminating', 'idle'] as const;
    const ids: number[] = [];
    for (const state of states) {
      const id = await store.insert(
        newProcess({
          code: 'x',
          state: state === 'idle' ? 'idle' : 'queued',
          timeoutMs: 1,
          createdAt: at(0),
        }),
      );
      await store.update(id, { state, updatedAt: at(0) });
      ids.push(id);
    }
    expect(await store.failInterrupted('stopped', at(9), 'process_interrupted')).toBe(3);
    for (const [i, id] of ids.entries()) {
      const record = await store.get(id);
      if (i < 3)
        expect(record).toMatchObject({
          state: 'idle',
          exitState: 'failed',
          error: 'stopped',
          errorReason: 'process_interrupted',
          completedAt: at(9),
        });
      else expect(record).toMatchObject({ state: 'idle', exitState: null, error: null, errorReason: null });
    }
  });

  it('is attached to openSqliteStore and keeps its rows across reopening', async () => {
    const { database } = await openStore();
    const filename = join(database.file, '..', 'opened.db');
    const first = await openCyrnelStore({ filename });
    const id = await first.processes.insert(newProcess({ code: 'x', timeoutMs: 1, createdAt: at(0) }));
    await first.close();
    const second = await openCyrnelStore({ filename });
    expect(await second.processes.code(id)).toBe('x');
    await second.close();
  });
});
