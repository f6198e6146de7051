import type { ProcessMetrics, ToolCallRecord } from '@cyrnel/sdk/api';
import { expect, it } from 'vitest';
import type { ProcessStorage } from '../index';
import { AT, newProcess } from './new-process';

/** An answered call of `serviceId` whose answer brought `resultBytes`. */
const answered = (serviceId: string, resultBytes: number): ToolCallRecord => ({
  serviceId,
  toolId: 'get',
  startedAt: AT,
  durationMs: 1,
  ok: true,
  errorCode: null,
  errorReason: null,
  decision: null,
  resultBytes,
});

/** Beyond 32 bits: the byte columns and their sums must hold them (PostgreSQL's bigint). */
const BIG = 3_000_000_000;

const metrics = (fields: Partial<ProcessMetrics> = {}): ProcessMetrics => ({
  toolCalls: 3,
  toolResultBytes: BIG,
  returnedBytes: 1_331,
  wallMs: 843.25,
  cpuMs: 61.5,
  ...fields,
});

/**
 * Run a process to its end on `storage`: started at `startedAt`, ended at `completedAt` with
 * `calls` and, unless null, `metrics`.
 */
async function ranProcess(
  storage: ProcessStorage,
  calls: readonly ToolCallRecord[],
  metricsOf: ProcessMetrics | null,
  times: { startedAt: string; completedAt: string },
): Promise<number> {
  const id = await storage.insert(newProcess());
  await storage.update(id, { state: 'running', startedAt: times.startedAt, updatedAt: times.startedAt });
  await storage.finish(
    id,
    {
      state: 'idle',
      exitState: 'success',
      completedAt: times.completedAt,
      updatedAt: times.completedAt,
      ...(metricsOf === null ? {} : { metrics: metricsOf }),
    },
    { output: {}, stdout: '', stderr: '' },
    calls.map((call, index) => ({ index, call })),
  );
  return id;
}

/** What the efficiency meter relies on: a run's metrics, its calls' bytes, a service's sums. */
export function metricsCases(current: () => ProcessStorage): void {
  it('writes a run’s metrics with its end (fractions and bytes past 32 bits kept), lists them, and clears them on a re-run', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    expect((await storage.get(id))?.metrics).toBeNull();
    expect((await storage.list({ limit: 5 }))[0]?.metrics).toBeNull();
    await storage.finish(
      id,
      { state: 'idle', exitState: 'success', metrics: metrics(), updatedAt: AT },
      { output: {}, stdout: '', stderr: '' },
      [],
    );
    expect((await storage.get(id))?.metrics).toEqual(metrics());
    expect((await storage.list({ limit: 5 }))[0]?.metrics).toEqual(metrics());
    // A run whose environment reported no CPU time.
    const other = await storage.insert(newProcess());
    await storage.update(other, { state: 'idle', metrics: metrics({ cpuMs: null }), updatedAt: AT });
    expect((await storage.get(other))?.metrics).toEqual(metrics({ cpuMs: null }));

    await storage.reset(id, { state: 'queued', exitState: null, updatedAt: AT });
    expect((await storage.get(id))?.metrics).toBeNull();
  });

  it('keeps each call’s result bytes: null from its start, its count once answered, through the end of the run', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    const started = { ...answered('shop', 0), ok: null, durationMs: 0, resultBytes: null };
    await storage.openCalls(id, [
      { index: 0, call: started },
      { index: 1, call: started },
    ]);
    expect((await storage.calls(id)).map((call) => call.resultBytes)).toEqual([null, null]);
    await storage.openCalls(id, [], [{ index: 0, call: answered('shop', BIG) }]);
    expect((await storage.calls(id)).map((call) => call.resultBytes)).toEqual([BIG, null]);
    // The end writes the call still in flight as failed: no answer, 0 bytes.
    await storage.finish(
      id,
      { state: 'idle', exitState: 'success', updatedAt: AT },
      {
        output: {},
        stdout: '',
        stderr: '',
      },
      [{ index: 1, call: { ...started, ok: false, resultBytes: 0 } }],
    );
    expect((await storage.calls(id)).map((call) => call.resultBytes)).toEqual([BIG, 0]);
  });

  it('sums a service’s ended runs: its own calls and their bytes, the whole of what each run returned and took', async () => {
    const storage = current();
    const times = (minute: number) => ({
      startedAt: `2026-01-01T00:0${minute}:00.000Z`,
      completedAt: `2026-01-01T00:0${minute}:30.000Z`,
    });
    expect(await storage.serviceStats('shop')).toEqual({
      runs: 0,
      toolCalls: 0,
      toolResultBytes: 0,
      returnedBytes: 0,
      wallMs: 0,
      cpuMs: null,
      firstRunAt: null,
      lastRunAt: null,
    });
    // Two services in one run: each gets its own calls, and the run's return and times whole.
    const both = await ranProcess(
      storage,
      [answered('shop', 100), answered('mail', 50), answered('shop', BIG)],
      metrics({ toolCalls: 3, returnedBytes: 30, wallMs: 10.5, cpuMs: 2.25 }),
      times(1),
    );
    await ranProcess(
      storage,
      [answered('shop', 1000)],
      metrics({ toolCalls: 1, returnedBytes: 10, wallMs: 4, cpuMs: null }),
      times(3),
    );
    // Not counted: a run without metrics (stored by an older server), one that never called the
    // service, one still running.
    await ranProcess(storage, [answered('shop', 7)], null, times(5));
    await ranProcess(storage, [answered('mail', 7)], metrics(), times(6));
    const running = await storage.insert(newProcess());
    await storage.update(running, { state: 'running', startedAt: AT, updatedAt: AT });
    await storage.openCalls(running, [{ index: 0, call: answered('shop', 9) }]);

    expect(await storage.serviceStats('shop')).toEqual({
      runs: 2,
      toolCalls: 3,
      toolResultBytes: BIG + 1100,
      returnedBytes: 40,
      wallMs: 14.5,
      cpuMs: 2.25,
      firstRunAt: times(1).startedAt,
      lastRunAt: times(3).completedAt,
    });
    expect(await storage.serviceStats('mail')).toMatchObject({
      runs: 2,
      toolCalls: 2,
      toolResultBytes: 57,
      returnedBytes: 30 + 1_331,
      firstRunAt: times(1).startedAt,
      lastRunAt: times(6).completedAt,
    });

    // Deleted (or pruned) runs leave the sums: they cover what is stored.
    await storage.delete(both);
    expect(await storage.serviceStats('shop')).toMatchObject({
      runs: 1,
      toolCalls: 1,
      toolResultBytes: 1000,
      cpuMs: null,
      firstRunAt: times(3).startedAt,
    });
  });
}
