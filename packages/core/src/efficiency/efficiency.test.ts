import { jsonText } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { createOutputMerger } from '../processes/output-merger';
import { trackTestManagers } from '../testing/test-manager';
import { answerBytes } from './answer-bytes';
import { claimedCpuMs, measureRun } from './run-metrics';

const setup = trackTestManagers();
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('answerBytes', () => {
  it('measures JSON text as it is and serialises other values once, in UTF-8', () => {
    expect(answerBytes(jsonText('{"a":"é"}'))).toBe(10);
    expect(answerBytes({ name: 'é' })).toBe(13);
    expect(answerBytes([1, 2])).toBe(5);
    expect(answerBytes('text')).toBe(6);
    expect(answerBytes(null)).toBe(4);
    // No JSON form: nothing to count.
    expect(answerBytes(undefined)).toBe(0);
    expect(answerBytes({ big: 1n })).toBe(0);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(answerBytes(cycle)).toBe(0);
  });
});

describe('the output merger’s size', () => {
  it('is the UTF-8 length of the merged JSON after every patch, deletions included', () => {
    const merger = createOutputMerger(1 << 20);
    expect(merger.bytes()).toBe(2);
    const steps: Record<string, unknown>[] = [
      { a: 1 },
      { ü: 'é€', list: [1, { b: null }] },
      { a: undefined },
      // A `__proto__` key is an own property like any other (parsed, not a literal's prototype).
      JSON.parse('{"__proto__":"x","list":"short"}'),
      { ü: undefined, list: undefined },
      JSON.parse('{"__proto__":null}'),
    ];
    for (const patch of steps) {
      merger.merge(patch);
      expect(merger.bytes()).toBe(bytes(merger.value()));
    }
    expect(merger.value()).toEqual(JSON.parse('{"__proto__":null}'));
  });
});

describe('measureRun', () => {
  const run = (fields: Partial<Parameters<typeof measureRun>[0]>) => ({
    calls: [{ resultBytes: 10 }, { resultBytes: null }, { resultBytes: 5 }],
    output: { bytes: () => 20 },
    stdout: { bytes: () => 3 },
    stderr: { bytes: () => 4 },
    runningAt: 1000,
    cpuClaimMs: 2.5,
    ...fields,
  });

  it('counts calls, bytes read and returned, and the wall time to the microsecond', () => {
    expect(measureRun(run({}), 1012.3456789)).toEqual({
      toolCalls: 3,
      toolResultBytes: 15,
      returnedBytes: 27,
      wallMs: 12.346,
      cpuMs: 2.5,
    });
  });

  it('takes the CPU time as a claim: never above the wall time; none without a report', () => {
    expect(measureRun(run({ cpuClaimMs: 99 }), 1010).cpuMs).toBe(10);
    expect(measureRun(run({ cpuClaimMs: undefined }), 1010).cpuMs).toBeNull();
    expect(measureRun(run({ runningAt: undefined, cpuClaimMs: 3 }), 1010)).toMatchObject({
      wallMs: 0,
      cpuMs: 0,
    });
    expect(claimedCpuMs({ cpuMs: 3.5 })).toBe(3.5);
    for (const lie of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5', null])
      expect(claimedCpuMs({ cpuMs: lie } as never)).toBeUndefined();
    expect(claimedCpuMs(undefined)).toBeUndefined();
    expect(claimedCpuMs(7 as never)).toBeUndefined();
  });
});

describe('the metrics of a run', () => {
  const CODE = `
    const answer = await cyrnel.invoke('math', 'double', { n: 21 });
    try { await cyrnel.invoke('math', 'missing', {}); } catch {}
    cyrnel.log('read é');
    cyrnel.error('warn');
    cyrnel.output({ answer, note: 'ü' });
    await cyrnel.sleep(5);
    cyrnel.report({ cpuMs: 0.25 });
  `;

  it('counts the calls, the answers’ bytes, what the run returns and its times, stored with its end', async () => {
    const { api, storage } = await setup();
    const { id } = await api.create({ code: CODE });
    // No metrics before the run ends (a busy machine may let the 5 ms run end before this read).
    const before = await api.get(id);
    if (before.state !== 'idle') expect(before.metrics).toBeNull();
    const result = await api.wait(id);
    expect(result.exitState).toBe('success');
    const returned =
      bytes(result.output) + Buffer.byteLength(result.stdout) + Buffer.byteLength(result.stderr);
    expect(result.metrics).toEqual({
      toolCalls: 2,
      toolResultBytes: bytes({ value: 42 }),
      returnedBytes: returned,
      wallMs: expect.any(Number),
      cpuMs: 0.25,
    });
    expect(result.metrics?.wallMs).toBeGreaterThanOrEqual(5);
    expect((await api.calls(id)).map((call) => call.resultBytes)).toEqual([bytes({ value: 42 }), 0]);
    await expect.poll(async () => (await storage.get(id))?.metrics).toEqual(result.metrics);
    expect(await storage.serviceStats('math')).toMatchObject({
      runs: 1,
      toolCalls: 2,
      toolResultBytes: bytes({ value: 42 }),
      returnedBytes: returned,
      cpuMs: 0.25,
    });

    // A re-run starts without the last run's metrics and ends with its own.
    const rerun = await api.run(id, { force: true });
    expect(rerun.metrics).toBeNull();
    expect((await api.wait(id)).metrics?.toolCalls).toBe(2);
  });

  it('never takes a CPU time above the wall time the host measured, nor a malformed one', async () => {
    const { api } = await setup();
    const inflated = await api.create({ code: 'cyrnel.report({ cpuMs: 1e9 })' });
    const metrics = (await api.wait(inflated.id)).metrics;
    expect(metrics?.cpuMs).toBe(metrics?.wallMs);
    const malformed = await api.create({ code: 'cyrnel.report({ cpuMs: -3 })' });
    expect((await api.wait(malformed.id)).metrics?.cpuMs).toBeNull();
  });
});
