import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProcessStorage } from '../index';
import { AT, CALL, newProcess } from './new-process';
import { metricsCases } from './process-storage-metrics';
import { quotaCases } from './process-storage-quotas';
import { runningCases } from './process-storage-running';
import { severalHostsCases } from './process-storage-several-hosts';

/** A storage under test and how to release it. */
export interface StorageUnderTest<T> {
  readonly storage: T;
  /** Release it (close the database, remove its files). */
  close(): Promise<void>;
}

/** Options of {@link runProcessStorageContract}. */
export interface ProcessStorageContractOptions {
  /** Shown in the suite's name, e.g. `sqlite`. */
  readonly name: string;
  /** A fresh, empty storage for each test. */
  create(): Promise<StorageUnderTest<ProcessStorage>>;
}

/**
 * The contract of core's `ProcessStorage` port as a Vitest suite: what the process manager relies
 * on from any store (ids, partial updates, atomic finish and reset, newest-first pages with
 * filters, deletion, recovery of interrupted runs, per-key totals and pruning, runs' metrics and
 * the sums of a service's runs). Call it at the top level of a test file.
 *
 * @example
 * ```ts
 * import { createMemoryProcessStorage } from '@cyrnel/core';
 * import { runProcessStorageContract } from '@cyrnel/core/testing';
 *
 * runProcessStorageContract({
 *   name: 'memory',
 *   create: async () => ({ storage: createMemoryProcessStorage(), close: async () => {} }),
 * });
 * ```
 */
export function runProcessStorageContract(options: ProcessStorageContractOptions): void {
  describe(`ProcessStorage contract: ${options.name}`, () => {
    let subject: StorageUnderTest<ProcessStorage>;
    beforeEach(async () => {
      subject = await options.create();
    });
    afterEach(async () => {
      await subject.close();
    });
    const current = () => subject.storage;
    describe('one host', () => oneHostCases(current));
    describe('calls and checkpoints of a running process', () => runningCases(current));
    describe('several hosts', () => severalHostsCases(current));
    describe('quotas and retention', () => quotaCases(current));
    describe('the efficiency meter', () => metricsCases(current));
  });
}

/** What a single host relies on: ids, updates, the end of a run, pages, deletion, recovery. */
function oneHostCases(current: () => ProcessStorage): void {
  it('answers increasing positive ids and reads back what was inserted', async () => {
    const storage = current();
    const first = await storage.insert(
      newProcess({
        ref: 'r1',
        keyId: 'k1',
        principalId: 'p1',
        connections: { github: 'work', slack: 'default' },
        timeoutMs: 500,
        envConfig: { a: [1, { b: 'c' }] },
      }),
    );
    const second = await storage.insert(newProcess({ state: 'queued', code: 'const x = "é";' }));
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(await storage.get(first)).toEqual({
      id: first,
      ref: 'r1',
      keyId: 'k1',
      principalId: 'p1',
      state: 'idle',
      exitState: null,
      error: null,
      errorReason: null,
      timeoutMs: 500,
      envConfig: { a: [1, { b: 'c' }] },
      connections: { github: 'work', slack: 'default' },
      createdAt: AT,
      updatedAt: AT,
      startedAt: null,
      completedAt: null,
      hostId: null,
      labels: [],
      approvalId: null,
      metrics: null,
    });
    // Without a principal or connections: null and none.
    expect(await storage.get(second)).toMatchObject({ state: 'queued', principalId: null, connections: {} });
    const [listed] = (await storage.list({ limit: 10 })).filter((row) => row.id === first);
    expect(listed?.principalId).toBe('p1');
    expect(listed && 'connections' in listed).toBe(false);
    expect(await storage.code(second)).toBe('const x = "é";');
    expect(await storage.results(first)).toEqual({ output: {}, stdout: '', stderr: '' });
    expect(await storage.calls(first)).toEqual([]);
  });

  it('answers undefined (or nothing) for unknown ids', async () => {
    const storage = current();
    expect(await storage.get(987_654)).toBeUndefined();
    expect(await storage.code(987_654)).toBeUndefined();
    expect(await storage.results(987_654)).toBeUndefined();
    expect(await storage.calls(987_654)).toEqual([]);
    expect(await storage.delete(987_654)).toBe(false);
  });

  it('changes only the fields an update names', async () => {
    const storage = current();
    const id = await storage.insert(newProcess({ ref: 'keep' }));
    await storage.update(id, {
      state: 'running',
      startedAt: '2026-01-01T00:00:01.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
    });
    expect(await storage.get(id)).toMatchObject({
      ref: 'keep',
      state: 'running',
      exitState: null,
      startedAt: '2026-01-01T00:00:01.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      completedAt: null,
    });
  });

  it('stores the end of a run (state, results, calls) together, and a reset clears them', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    const end = {
      state: 'idle',
      exitState: 'failed',
      error: 'boom',
      errorReason: 'process_timeout',
      completedAt: '2026-01-01T00:00:02.000Z',
      updatedAt: '2026-01-01T00:00:02.000Z',
    } as const;
    const results = { output: { n: 1, nested: { s: 'ü' } }, stdout: 'out\n', stderr: 'err\n' };
    await storage.finish(id, end, results, [
      { index: 0, call: CALL },
      { index: 1, call: { ...CALL, toolId: 'listOrders', ok: true, errorCode: null, errorReason: null } },
    ]);
    expect(await storage.get(id)).toMatchObject(end);
    expect(await storage.results(id)).toEqual(results);
    expect((await storage.calls(id)).map((call) => call.toolId)).toEqual(['getUser', 'listOrders']);
    expect((await storage.calls(id))[0]).toEqual(CALL);

    await storage.reset(id, {
      state: 'queued',
      exitState: null,
      error: null,
      errorReason: null,
      completedAt: null,
      updatedAt: '2026-01-01T00:00:03.000Z',
    });
    expect(await storage.get(id)).toMatchObject({
      state: 'queued',
      exitState: null,
      error: null,
      errorReason: null,
    });
    expect(await storage.results(id)).toEqual({ output: {}, stdout: '', stderr: '' });
    expect(await storage.calls(id)).toEqual([]);
  });

  it('writes batches of calls of every size, starts and ends together, each row over its own', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    const pending = (index: number) => ({
      index,
      call: { ...CALL, toolId: `t${index}`, ok: null, errorCode: null, errorReason: null, decision: null },
    });
    const ended = (index: number) => ({ index, call: { ...CALL, toolId: `t${index}`, durationMs: index } });
    const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
    // Batches as a run of kept calls brings them: ends of earlier starts and new starts, one
    // statement each, of sizes on both sides of every bound an implementation may keep.
    let next = 0;
    /** The start opened with each batch's ends: pending still. */
    const open = new Set<number>();
    for (const size of [1, 7, 8, 9, 30, 64, 65, 130]) {
      const starts = range(next, size);
      await storage.openCalls(id, starts.map(pending));
      await storage.openCalls(id, [pending(next + size)], starts.map(ended));
      open.add(next + size);
      next += size + 1;
    }
    const calls = await storage.calls(id);
    expect(calls).toHaveLength(next);
    calls.forEach((call, index) => {
      if (open.has(index)) expect(call).toMatchObject({ toolId: `t${index}`, ok: null });
      else expect(call).toEqual({ ...CALL, toolId: `t${index}`, durationMs: index });
    });
  });

  it('lists newest first, filtered and paged, without envConfig', async () => {
    const storage = current();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        await storage.insert(
          newProcess({ ref: i % 2 === 0 ? 'even' : 'odd', keyId: i < 2 ? 'k1' : 'k2', envConfig: { i } }),
        ),
      );
    }
    await storage.finish(
      ids[1] as number,
      { state: 'idle', exitState: 'success', updatedAt: AT },
      { output: {}, stdout: '', stderr: '' },
      [],
    );
    await storage.update(ids[2] as number, { state: 'queued', updatedAt: AT });
    const all = await storage.list({ limit: 10 });
    expect(all.map((summary) => summary.id)).toEqual([...ids].reverse());
    expect(all.every((summary) => !('envConfig' in summary))).toBe(true);
    expect((await storage.list({ limit: 10, ref: 'even' })).map((s) => s.id)).toEqual([
      ids[4],
      ids[2],
      ids[0],
    ]);
    expect((await storage.list({ limit: 10, keyId: 'k1' })).map((s) => s.id)).toEqual([ids[1], ids[0]]);
    expect((await storage.list({ limit: 10, state: 'queued' })).map((s) => s.id)).toEqual([ids[2]]);
    expect((await storage.list({ limit: 10, exitState: 'success' })).map((s) => s.id)).toEqual([ids[1]]);
    expect((await storage.list({ limit: 2 })).map((s) => s.id)).toEqual([ids[4], ids[3]]);
    expect((await storage.list({ limit: 2, beforeId: ids[3] })).map((s) => s.id)).toEqual([ids[2], ids[1]]);
  });

  it('deletes a process with its calls and results', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    await storage.finish(
      id,
      { state: 'idle', exitState: 'success', updatedAt: AT },
      { output: { a: 1 }, stdout: 'x', stderr: '' },
      [{ index: 0, call: CALL }],
    );
    expect(await storage.delete(id)).toBe(true);
    expect(await storage.get(id)).toBeUndefined();
    expect(await storage.calls(id)).toEqual([]);
    expect(await storage.delete(id)).toBe(false);
    // Ids are never reused.
    expect(await storage.insert(newProcess())).toBeGreaterThan(id);
  });

  it('records runs a stopped host left queued, running, waiting or terminating as failed, with the reason', async () => {
    const storage = current();
    const idle = await storage.insert(newProcess());
    const queued = await storage.insert(newProcess({ state: 'queued' }));
    const running = await storage.insert(newProcess());
    await storage.update(running, { state: 'running', updatedAt: AT });
    const waiting = await storage.insert(newProcess());
    await storage.update(waiting, { state: 'waiting', approvalId: 'ap1', updatedAt: AT });
    const terminating = await storage.insert(newProcess());
    await storage.update(terminating, { state: 'terminating', updatedAt: AT });
    const at = '2026-01-02T00:00:00.000Z';
    expect(await storage.failInterrupted('interrupted: the host stopped', at, 'process_interrupted')).toBe(4);
    for (const id of [queued, running, waiting, terminating]) {
      expect(await storage.get(id)).toMatchObject({
        state: 'idle',
        exitState: 'failed',
        error: 'interrupted: the host stopped',
        errorReason: 'process_interrupted',
        completedAt: at,
        approvalId: null,
      });
    }
    expect(await storage.get(idle)).toMatchObject({ state: 'idle', exitState: null, error: null });
    expect(await storage.failInterrupted('again', at, 'process_interrupted')).toBe(0);
  });

  it('keeps the labels a run accumulated and the approval it waits for', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    expect(await storage.get(id)).toMatchObject({ labels: [], approvalId: null });
    await storage.update(id, {
      state: 'waiting',
      labels: ['private', 'untrusted'],
      approvalId: 'ap1',
      updatedAt: AT,
    });
    expect(await storage.get(id)).toMatchObject({
      state: 'waiting',
      labels: ['private', 'untrusted'],
      approvalId: 'ap1',
    });
    expect((await storage.list({ state: 'waiting', limit: 5 }))[0]).toMatchObject({ id, approvalId: 'ap1' });
    await storage.finish(
      id,
      { state: 'idle', approvalId: null, labels: ['private'], updatedAt: AT },
      {
        output: {},
        stdout: '',
        stderr: '',
      },
      [{ index: 0, call: CALL }],
    );
    expect(await storage.get(id)).toMatchObject({ labels: ['private'], approvalId: null });
    expect(await storage.calls(id)).toEqual([CALL]);
    await storage.reset(id, { state: 'queued', labels: [], updatedAt: AT });
    expect(await storage.get(id)).toMatchObject({ labels: [] });
  });
}
