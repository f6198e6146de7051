import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../gateway/gateway-protocol';
import { trackAuditedGateways } from '../testing/audited-gateway';
import { HANGS, runningOf, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();
const audited = trackAuditedGateways();

const keptStart = (id: number, startedAt: number): AuditEvent => ({
  kind: 'start',
  id,
  serviceId: 'math',
  toolId: 'double',
  startedAt,
  kept: id,
});

describe('calls the egress gateway reports after their run ended', () => {
  it('records a kept call whose report came after the run settled, and writes its answer over it', async () => {
    const { egress, report } = audited();
    const { api, storage } = await setup({ egress });
    const { id } = await api.create({ code: 'cyrnel.output({ done: true })' });
    await api.wait(id);
    const startedAt = Date.now() - 50;

    // A worker stalled past the run's end: its request left, so the audit lists it.
    await expect(report(id, keptStart(41, startedAt))).resolves.toBe(true);
    expect(await storage.calls(id)).toEqual([
      expect.objectContaining({
        serviceId: 'math',
        toolId: 'double',
        ok: null,
        startedAt: new Date(startedAt).toISOString(),
      }),
    ]);
    await report(id, {
      kind: 'end',
      id: 41,
      ok: false,
      errorCode: null,
      errorReason: 'upstream_crashed',
      durationMs: 30.4,
      status: null,
      resultBytes: 0,
    });
    await expect
      .poll(() => storage.calls(id))
      .toEqual([
        expect.objectContaining({
          ok: false,
          errorReason: 'upstream_crashed',
          errorCode: 'upstream_error',
          durationMs: 30,
        }),
      ]);
    // The process's own record is the run's: its end is unchanged.
    expect(await api.wait(id)).toMatchObject({ exitState: 'success', output: { done: true } });
  });

  it('follows the ended run’s own write, so late rows come after the run’s calls, each of a burst its own', async () => {
    const { egress, report } = audited();
    const { api, storage } = await setup({ egress });
    const { id } = await api.create({
      code: 'await cyrnel.invoke("math", "double", { n: 2 })',
    });
    await api.wait(id);
    // A burst of late calls (a stalled worker's batch): each its own row, in order, ends in any order.
    await Promise.all([report(id, keptStart(7, Date.now())), report(id, keptStart(8, Date.now()))]);
    for (const [callId, resultBytes] of [
      [8, 5],
      [7, 12],
    ] as const)
      await report(id, {
        kind: 'end',
        id: callId,
        ok: true,
        errorCode: null,
        errorReason: null,
        durationMs: 3,
        status: 200,
        resultBytes,
      });
    await expect
      .poll(() => storage.calls(id))
      .toEqual([
        expect.objectContaining({ toolId: 'double', ok: true }),
        expect.objectContaining({ toolId: 'double', ok: true, resultBytes: 12, durationMs: 3 }),
        expect.objectContaining({ toolId: 'double', ok: true, resultBytes: 5, durationMs: 3 }),
      ]);
  });

  it('refuses an asked start of an ended run, and never puts an earlier run’s call into a run that runs again', async () => {
    const { egress, report } = audited();
    const { api, storage } = await setup({ egress });
    const { id } = await api.create({ code: HANGS, timeoutMs: null });
    await runningOf(api, id);
    // Running, but it kept no decision for the tool: the call is an earlier run's.
    await expect(report(id, keptStart(9, Date.now()))).resolves.toBe(true);
    const asked: AuditEvent = {
      kind: 'start',
      id: 10,
      serviceId: 'math',
      toolId: 'double',
      startedAt: Date.now(),
    };
    await api.kill(id);
    await api.wait(id);
    await expect(report(id, asked)).resolves.toBe(false);
    expect(await storage.calls(id)).toEqual([]);
    // A process that is gone.
    await expect(report(99_999, keptStart(11, Date.now()))).resolves.toBe(true);
    expect(await storage.calls(99_999)).toEqual([]);
  });
});
