import { describe, expect, it } from 'vitest';
import { createScriptEnvironment } from '../testing/script-environment';
import { HANGS, runningOf, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('wait', () => {
  it('gives up waiting after timeoutMs or when the signal aborts', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: HANGS, timeoutMs: null });
    await expect(api.wait(id, { timeoutMs: 10 })).rejects.toMatchObject({
      code: 'timeout',
      details: { processId: id },
    });
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(api.wait(id, { signal: controller.signal })).rejects.toThrow('gone');
    await expect(api.wait(12345)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('waiting with a margin', () => {
  it('counts the margin from the start of the run, not from the time queued', async () => {
    const env = createScriptEnvironment({ poolSize: 1 });
    const { api } = await setup({ env });
    // Five runs of ~60 ms through one slot: the last one waits ~240 ms, beyond its 150 ms timeout.
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        await api.create({ code: `await cyrnel.sleep(60); cyrnel.output({ i: ${i} })`, timeoutMs: 150 }),
      );
    }
    const last = created.at(-1)?.id as number;
    // What bounding by timeout plus margin from creation did: the last one gave up while queued.
    await expect(api.wait(last, { timeoutMs: 170 })).rejects.toMatchObject({
      code: 'timeout',
      status: 504,
      details: { processId: last },
    });
    const results = await Promise.all(created.map(({ id }) => api.wait(id, { marginMs: 20 })));
    expect(results.map((result) => [result.exitState, result.output])).toEqual(
      created.map((_, i) => ['success', { i }]),
    );
  });

  it('gives up once a run has had its timeout plus the margin, naming the process', async () => {
    // The environment ignores the kill and the grace outlives the wait: the run stays terminating.
    const env = createScriptEnvironment({ hang: true });
    const { api } = await setup({ env, limits: { killGraceMs: 300 } });
    const { id } = await api.create({ code: 'x', timeoutMs: 30 });
    const error = await api.wait(id, { marginMs: 10 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', reason: 'wait_timeout', details: { processId: id } });
    expect((error as Error).message).toBe(
      `process ${id} did not finish within its timeout of 30 ms plus 10 ms`,
    );
    expect((await api.get(id)).state).toBe('terminating');
  });

  it('waits for a run within its timeout plus the margin until it ends or the waiter leaves', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: HANGS, timeoutMs: 60_000 });
    const waiting = api.wait(id, { marginMs: 1 });
    await runningOf(api, id);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await api.kill(id);
    expect(await waiting).toMatchObject({ state: 'idle', exitState: 'canceled' });
    const controller = new AbortController();
    const again = await api.create({ code: HANGS, timeoutMs: 60_000 });
    const left = api.wait(again.id, { marginMs: 1, signal: controller.signal });
    controller.abort(new Error('the client left'));
    await expect(left).rejects.toThrow('the client left');
  });
});
