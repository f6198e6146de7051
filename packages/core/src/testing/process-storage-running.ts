import type { ToolCallRecord } from '@cyrnel/sdk/api';
import { expect, it } from 'vitest';
import type { ProcessStorage } from '../index';
import { AT, CALL, newProcess } from './new-process';

/** What a running process writes before its end: calls at their start and end, checkpoints. */
export function runningCases(current: () => ProcessStorage): void {
  const started = (toolId: string): ToolCallRecord => ({
    ...CALL,
    toolId,
    durationMs: 0,
    ok: null,
    errorCode: null,
    errorReason: null,
    resultBytes: null,
  });

  it('lists a call from its start (ok null) and writes its end with a later start, or alone', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    const other = await storage.insert(newProcess());
    await storage.openCalls(id, [{ index: 0, call: started('getUser') }]);
    await storage.openCalls(id, [
      { index: 1, call: started('listOrders') },
      { index: 2, call: started('deleteUser') },
    ]);
    await storage.openCalls(other, [{ index: 0, call: started('elsewhere') }]);
    expect(await storage.calls(id)).toEqual([
      started('getUser'),
      started('listOrders'),
      started('deleteUser'),
    ]);

    // Two ends with the next start, in one write.
    await storage.openCalls(
      id,
      [{ index: 3, call: started('getOrder') }],
      [
        { index: 1, call: { ...started('listOrders'), ok: true, durationMs: 7 } },
        { index: 0, call: { ...CALL, durationMs: 3 } },
      ],
    );
    expect(await storage.calls(id)).toEqual([
      { ...CALL, durationMs: 3 },
      { ...started('listOrders'), ok: true, durationMs: 7 },
      started('deleteUser'),
      started('getOrder'),
    ]);
    // An end alone (no start came).
    const failed = {
      ...started('deleteUser'),
      ok: false,
      errorCode: 'upstream_error',
      durationMs: 1,
    } as const;
    await storage.openCalls(id, [], [{ index: 2, call: failed }]);
    expect((await storage.calls(id))[2]).toEqual(failed);
    expect(await storage.calls(other)).toEqual([started('elsewhere')]);
  });

  it('writes calls made before their start was written as ended rows: whole, or ok null while unanswered', async () => {
    // The egress gateway's kept calls: their requests left already, so their starts wait for the
    // run's next write and come as rows of their own (answered or not) in its `ended`.
    const storage = current();
    const id = await storage.insert(newProcess());
    await storage.openCalls(id, [{ index: 0, call: started('getUser') }]);
    await storage.openCalls(
      id,
      [],
      [
        { index: 0, call: { ...started('getUser'), ok: true, durationMs: 2 } },
        { index: 1, call: { ...started('listOrders'), ok: true, durationMs: 3, resultBytes: 9 } },
        { index: 2, call: started('getOrder') },
      ],
    );
    expect(await storage.calls(id)).toEqual([
      { ...started('getUser'), ok: true, durationMs: 2 },
      { ...started('listOrders'), ok: true, durationMs: 3, resultBytes: 9 },
      started('getOrder'),
    ]);
  });

  it('keeps started calls and checkpoints across a crash: recovery lists them interrupted', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    await storage.update(id, { state: 'running', startedAt: AT, updatedAt: AT });
    await storage.openCalls(id, [
      { index: 0, call: started('getUser') },
      { index: 1, call: started('listOrders') },
    ]);
    await storage.openCalls(id, [], [{ index: 0, call: { ...started('getUser'), ok: true, durationMs: 4 } }]);
    await storage.checkpoint(id, { stdout: 'one\n', output: { step: 1 } });
    await storage.checkpoint(id, { stdout: 'one\ntwo\n', stderr: 'warn\n' });
    expect(await storage.results(id)).toEqual({
      output: { step: 1 },
      stdout: 'one\ntwo\n',
      stderr: 'warn\n',
    });

    expect(await storage.failInterrupted('interrupted', AT, 'process_interrupted')).toBe(1);
    expect(await storage.calls(id)).toEqual([
      { ...started('getUser'), ok: true, durationMs: 4 },
      started('listOrders'),
    ]);
    expect(await storage.results(id)).toEqual({
      output: { step: 1 },
      stdout: 'one\ntwo\n',
      stderr: 'warn\n',
    });
  });

  it('ends a run over its started calls: those given replace their rows, those missing are appended', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    await storage.openCalls(id, [
      { index: 0, call: started('getUser') },
      { index: 1, call: started('listOrders') },
    ]);
    await storage.openCalls(id, [], [{ index: 0, call: { ...started('getUser'), ok: true, durationMs: 2 } }]);
    const inFlight = { ...started('listOrders'), ok: false, durationMs: 9 };
    const neverStored = {
      ...CALL,
      toolId: 'refused',
      errorCode: 'internal',
      errorReason: 'internal',
    } as const;
    await storage.finish(
      id,
      { state: 'idle', exitState: 'success', updatedAt: AT },
      { output: { done: true }, stdout: 'all\n', stderr: '' },
      [
        { index: 1, call: inFlight },
        { index: 2, call: neverStored },
      ],
    );
    expect(await storage.calls(id)).toEqual([
      { ...started('getUser'), ok: true, durationMs: 2 },
      inFlight,
      neverStored,
    ]);
    expect(await storage.results(id)).toEqual({ output: { done: true }, stdout: 'all\n', stderr: '' });
  });

  it('appends a batch of thousands of starts (multi-row statements)', async () => {
    const storage = current();
    const id = await storage.insert(newProcess());
    const batch = Array.from({ length: 1200 }, (_, index) => ({ index, call: started(`t${index}`) }));
    await storage.openCalls(id, batch);
    const calls = await storage.calls(id);
    expect(calls).toHaveLength(1200);
    expect(calls.map((call) => call.toolId)).toEqual(batch.map(({ call }) => call.toolId));
  });
}
