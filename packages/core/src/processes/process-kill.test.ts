import type { ProcessEvent } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { DELETED_ERROR, KILLED_ERROR } from '../index';
import { createScriptEnvironment } from '../testing/script-environment';
import { HANGS, runningOf, trackTestManagers } from '../testing/test-manager';
import { createMemoryProcessStorage } from './memory-process-storage';
import { KEY_REVOKED_ERROR } from './process-errors';
import type { ProcessStorage } from './process-storage';

const setup = trackTestManagers();

describe('kill and delete', () => {
  it('kills a queued process without running it and a running one through terminating', async () => {
    const env = createScriptEnvironment({ poolSize: 1 });
    const { api } = await setup({ env });
    const first = await api.create({ code: HANGS, timeoutMs: null });
    const second = await api.create({ code: 'cyrnel.log("never")' });
    await runningOf(api, first.id);
    const killedQueued = await api.kill(second.id);
    expect(killedQueued).toMatchObject({
      state: 'idle',
      exitState: 'canceled',
      error: KILLED_ERROR,
      errorReason: 'process_killed',
    });
    await expect(api.kill(second.id)).rejects.toMatchObject({ code: 'conflict' });
    await expect(api.stdout(first.id)).rejects.toMatchObject({ code: 'conflict' });
    const [a, b] = await Promise.all([api.kill(first.id), api.kill(first.id)]);
    expect(a.state).toBe('terminating');
    expect(b.state).toBe('terminating');
    const result = await api.wait(first.id);
    expect(result).toMatchObject({
      state: 'idle',
      exitState: 'canceled',
      error: KILLED_ERROR,
      errorReason: 'process_killed',
    });
    expect(env.started).toEqual([first.id]);
    expect((await api.wait(second.id)).stdout).toBe('');
  });

  it('keeps a tool call still in flight when the run is killed', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: "await cyrnel.invoke('math', 'hang', {})", timeoutMs: null });
    await runningOf(api, id);
    expect(await api.calls(id)).toMatchObject([{ toolId: 'hang', ok: null, errorCode: null }]);
    await api.kill(id);
    await api.wait(id);
    expect(await api.calls(id)).toMatchObject([
      { serviceId: 'math', toolId: 'hang', ok: false, errorCode: null },
    ]);
  });

  it('deletes idle processes only', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: HANGS });
    await expect(api.delete(id)).rejects.toMatchObject({ code: 'conflict' });
    await api.kill(id);
    await api.wait(id);
    await api.delete(id);
    await expect(api.get(id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.delete(id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.kill(999)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('ends the subscriptions of a never-run process when it is deleted', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: 'x', autorun: false });
    const events: ProcessEvent[] = [];
    await api.subscribe(id, (event) => events.push(event));
    await api.delete(id);
    expect(events).toEqual([
      { type: 'state', data: { state: 'idle', exitState: null } },
      { type: 'exit', data: { exitState: 'canceled', error: DELETED_ERROR, errorReason: 'process_killed' } },
    ]);
    await expect(api.subscribe(id, () => {})).rejects.toMatchObject({ code: 'not_found' });
  });

  it("ends the queued and running processes of a revoked key, and no other key's", async () => {
    const env = createScriptEnvironment({ poolSize: 1 });
    const { api } = await setup({ env });
    const running = await api.create({ code: HANGS, timeoutMs: null }, { keyId: 'gone' });
    await runningOf(api, running.id);
    const queued = await api.create({ code: 'cyrnel.log("never")' }, { keyId: 'gone' });
    const other = await api.create({ code: 'cyrnel.log("other")' }, { keyId: 'kept' });
    const idle = await api.create({ code: 'x', autorun: false }, { keyId: 'gone' });
    expect(await api.revokeKey('gone')).toBe(2);
    // Recorded before the answer.
    for (const id of [running.id, queued.id]) {
      expect(await api.get(id)).toMatchObject({
        state: 'idle',
        exitState: 'canceled',
        error: KEY_REVOKED_ERROR,
        errorReason: 'key_revoked',
      });
    }
    expect((await api.get(idle.id)).exitState).toBeNull();
    expect(await api.wait(other.id)).toMatchObject({ exitState: 'success', stdout: 'other\n' });
    expect(env.started).toEqual([running.id, other.id]);
    expect(await api.revokeKey('gone')).toBe(0);
    // A create that passed the key check before the deletion is refused now.
    await expect(api.create({ code: 'x' }, { keyId: 'gone' })).rejects.toMatchObject({
      reason: 'key_revoked',
      status: 401,
    });
    await expect(api.revokeKey('' as never)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('ends a process of a key revoked while its create was being stored', async () => {
    const memory = createMemoryProcessStorage();
    let held: (() => void) | undefined;
    const storage: ProcessStorage = {
      ...memory,
      // The insert waits until the revocation has swept: its row is not there to be found.
      insert: async (process) => {
        await new Promise<void>((resolve) => {
          held = resolve;
        });
        return memory.insert(process);
      },
    };
    const { api } = await setup({ storage });
    const creating = api.create({ code: HANGS, timeoutMs: null }, { keyId: 'late' });
    while (!held) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(await api.revokeKey('late')).toBe(0);
    held();
    const { id } = await creating;
    expect(await api.wait(id)).toMatchObject({ exitState: 'canceled', errorReason: 'key_revoked' });
  });
});
