import { describe, expect, it } from 'vitest';
import { createMemoryProcessStorage, INTERRUPTED_ERROR, SHUTDOWN_ERROR } from '../index';
import { createScriptEnvironment } from '../testing/script-environment';
import { HANGS, runningOf, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('createProcessManager: recovery and shutdown', () => {
  it('records processes a stopped host left unfinished as failed', async () => {
    const storage = createMemoryProcessStorage();
    const at = new Date().toISOString();
    const id = await storage.insert({
      code: 'x',
      ref: null,
      keyId: null,
      state: 'queued',
      timeoutMs: null,
      envConfig: {},
      createdAt: at,
    });
    await storage.update(id, { state: 'running', startedAt: at, updatedAt: at });
    const { manager, api } = await setup({ storage });
    await manager.recover();
    expect(await api.get(id)).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      error: INTERRUPTED_ERROR,
      errorReason: 'process_interrupted',
    });
  });

  it('gives running processes a grace period on close, then kills and records them', async () => {
    const { manager, api } = await setup();
    const quick = await api.create({ code: 'await cyrnel.sleep(5); cyrnel.output({ ok: true })' });
    const stuck = await api.create({ code: HANGS, timeoutMs: null });
    await manager.close({ graceMs: 1000 });
    expect(await api.wait(quick.id)).toMatchObject({ exitState: 'success', output: { ok: true } });
    expect(await api.get(stuck.id)).toMatchObject({
      exitState: 'failed',
      error: SHUTDOWN_ERROR,
      errorReason: 'process_interrupted',
    });
    await expect(api.create({ code: 'x' })).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('records what the shutdown interrupts, running or queued, as failed', async () => {
    const env = createScriptEnvironment({ poolSize: 1 });
    const { manager, api, environments } = await setup({ env });
    const running = await api.create({ code: HANGS, timeoutMs: null });
    const queued = await api.create({ code: 'cyrnel.log("never")' });
    await runningOf(api, running.id);
    await manager.close({ graceMs: 0 });
    for (const { id } of [running, queued]) {
      expect(await api.get(id)).toMatchObject({
        state: 'idle',
        exitState: 'failed',
        error: SHUTDOWN_ERROR,
        errorReason: 'process_interrupted',
      });
    }
    expect(env.started).toEqual([running.id]);
    expect(environments.held()).toBe(0);
  });
});
