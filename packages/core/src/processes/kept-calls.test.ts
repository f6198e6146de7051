import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCallJournal } from '../gateway/call-journal';
import type { AuditEvent } from '../gateway/gateway-protocol';
import { trackAuditedGateways } from '../testing/audited-gateway';
import { HANGS, runningOf, trackTestManagers } from '../testing/test-manager';
import { createMemoryProcessStorage } from './memory-process-storage';
import type { ProcessStorage } from './process-storage';

const setup = trackTestManagers();
const audited = trackAuditedGateways();

/**
 * A memory storage that logs its call writes (`open <starts> ended <ends>`, `finish <calls>`);
 * the call write numbered `hold` (from 1) waits until released, the one numbered `fail` throws.
 */
function loggedStorage(hold?: number, fail?: number) {
  const memory = createMemoryProcessStorage();
  const log: string[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let writes = 0;
  const indexes = (calls: readonly { index: number }[]) => calls.map((call) => call.index).join(',');
  const storage: ProcessStorage & { writes(): number } = {
    ...memory,
    writes: () => writes,
    async openCalls(id, calls, ended = []) {
      const write = ++writes;
      if (write === hold) await held;
      if (write === fail) throw new Error('disk I/O error');
      log.push(
        ended.length === 0 ? `open ${indexes(calls)}` : `open ${indexes(calls)} ended ${indexes(ended)}`,
      );
      return memory.openCalls(id, calls, ended);
    },
    async finish(id, change, results, calls) {
      log.push(`finish ${indexes(calls)}`);
      return memory.finish(id, change, results, calls);
    },
  };
  return { storage, log, release };
}

type StartEvent = Extract<AuditEvent, { kind: 'start' }>;

const asked = (id: number): StartEvent => ({
  kind: 'start',
  id,
  serviceId: 'math',
  toolId: 'double',
  startedAt: Date.now(),
});
const kept = (id: number): StartEvent => ({ ...asked(id), kept: id });
const answered = (id: number): AuditEvent => ({
  kind: 'end',
  id,
  ok: true,
  errorCode: null,
  errorReason: null,
  durationMs: 2,
  status: 200,
  resultBytes: 4,
});

describe("a run's kept calls (made by the egress gateway's workers on their own)", () => {
  it('are written with the run’s next write: many in one statement, each whole once answered', async () => {
    const { egress, report } = audited({ journal: true });
    const { storage, log } = loggedStorage();
    const { api } = await setup({ egress, storage });
    const { id } = await api.create({ code: HANGS, timeoutMs: null });
    await runningOf(api, id);
    // The first call is asked: stored before its request leaves, and kept for the tool.
    await expect(report(id, asked(1))).resolves.toEqual({ ok: true, keep: true });
    expect(log).toEqual(['open 0']);
    // A worker's batch: the first call's answer, five kept calls, four of them answered already.
    const reports = [answered(1), kept(2), answered(2), kept(3), answered(3), kept(4), answered(4)]
      .concat([kept(5), answered(5), kept(6)])
      .map((event) => report(id, event));
    // Each kept start resolves once it is stored: all of them in one statement.
    await expect(Promise.all(reports)).resolves.toEqual(Array(10).fill(true));
    expect(log).toEqual(['open 0', 'open 5 ended 0,1,2,3,4']);
    expect(await storage.calls(id)).toEqual([
      ...Array.from({ length: 5 }, () => expect.objectContaining({ ok: true, resultBytes: 4 })),
      expect.objectContaining({ ok: null }),
    ]);
    await api.kill(id);
  });

  it('are left to the run’s own end when it ends before their write, never written again after it', async () => {
    const { egress, report } = audited({ journal: true });
    // The second call write (the first call's end, alone) is held.
    const { storage, log, release } = loggedStorage(2);
    const { api } = await setup({ egress, storage });
    const { id } = await api.create({ code: HANGS, timeoutMs: null });
    await runningOf(api, id);
    await expect(report(id, asked(1))).resolves.toEqual({ ok: true, keep: true });
    await report(id, answered(1));
    await expect.poll(() => log.length, { timeout: 10_000 }).toBe(1);
    // While that write is under way the kept calls wait for the next one; the run ends first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reports = [kept(2), answered(2), kept(3)].map((event) => report(id, event));
    await api.kill(id);
    await api.wait(id);
    release();
    await expect(Promise.all(reports)).resolves.toEqual([true, true, true]);
    await api.list({});
    // The run's end wrote all three; the write queued after it wrote none of the kept calls.
    expect(log).toEqual(['open 0', 'open  ended 0', 'finish 0,1,2']);
    expect(await storage.calls(id)).toEqual([
      expect.objectContaining({ ok: true, resultBytes: 4 }),
      expect.objectContaining({ ok: true, resultBytes: 4 }),
      expect.objectContaining({ ok: false }),
    ]);
  });
});

describe("a run's calls of the gate's path on a host that journals (the host's own thread makes them)", () => {
  /** A program of five sequential calls of `probe.echo`, then its output, then it waits. */
  const FIVE_CALLS = `
    const answers = [];
    for (let n = 0; n < 5; n++) answers.push((await cyrnel.invoke('probe', 'echo', { n })).n);
    cyrnel.output({ answers });
    await new Promise(() => {});`;
  const probe = () => {
    const made: number[] = [];
    const tools = new Map([
      [
        'probe.echo',
        async (parameters: Record<string, unknown>) => {
          made.push(Number(parameters.n));
          return { n: parameters.n };
        },
      ],
    ]);
    return { made, tools };
  };

  it('leave journaled without waiting for their start’s write, and are written whole with the run’s next write', async () => {
    const { egress, journalDir } = audited({ journal: true });
    // The first call write is held: no call waits for it.
    const { storage, log, release } = loggedStorage(1);
    const { made, tools } = probe();
    const { api } = await setup({ egress, storage, tools });
    const { id } = await api.create({ code: FIVE_CALLS, timeoutMs: null });
    await expect.poll(() => made, { timeout: 10_000 }).toEqual([0, 1, 2, 3, 4]);
    expect(log).toEqual([]);
    // Each start is in the host's journal before its request left.
    const lines = readCallJournal(join(journalDir as string, 'h-1.jsonl'));
    expect(lines.map((line) => [line.p, line.s, line.t])).toEqual(Array(5).fill([id, 'probe', 'echo']));
    release();
    await expect.poll(async () => (await storage.calls(id)).length, { timeout: 10_000 }).toBe(5);
    expect(await storage.calls(id)).toEqual(
      Array.from({ length: 5 }, () => expect.objectContaining({ ok: true, errorReason: null })),
    );
    // Answered before their row was written: one row each, no pending row updated later.
    expect(log.every((entry) => entry.startsWith('open  ended '))).toBe(true);
    expect(log.join(' ').match(/\d+/g)?.sort()).toEqual(['0', '1', '2', '3', '4']);
    await api.kill(id);
  });

  it('wait for their start’s write on a host without a journal', async () => {
    const { egress } = audited();
    const { storage, log, release } = loggedStorage(1);
    const { made, tools } = probe();
    const { api } = await setup({ egress, storage, tools });
    const { id } = await api.create({ code: FIVE_CALLS, timeoutMs: null });
    // The first start's write is under way (held): its request has not left.
    await expect.poll(() => storage.writes(), { timeout: 10_000 }).toBe(1);
    expect(made).toEqual([]);
    release();
    await expect.poll(() => made, { timeout: 10_000 }).toEqual([0, 1, 2, 3, 4]);
    expect(log[0]).toBe('open 0');
    await api.kill(id);
  });

  it('go on when their row cannot be written: the answer reaches the program, the run’s end writes the row', async () => {
    const { egress } = audited({ journal: true });
    const { storage, log } = loggedStorage(undefined, 1);
    const { made, tools } = probe();
    const { api } = await setup({ egress, storage, tools });
    const { id } = await api.create({ code: FIVE_CALLS, timeoutMs: null });
    await expect.poll(() => made, { timeout: 10_000 }).toEqual([0, 1, 2, 3, 4]);
    // The one write of the five failed.
    await expect.poll(() => storage.writes(), { timeout: 10_000 }).toBe(1);
    await api.kill(id);
    expect((await api.wait(id)).output).toEqual({ answers: [0, 1, 2, 3, 4] });
    expect(log.at(-1)).toBe('finish 0,1,2,3,4');
    expect(await storage.calls(id)).toEqual(
      Array.from({ length: 5 }, () => expect.objectContaining({ ok: true, errorReason: null })),
    );
  });
});
