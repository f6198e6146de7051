import type { ProcessEvent } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { DELETED_ERROR, KILLED_ERROR } from '../index';
import { createScriptEnvironment } from '../testing/script-environment';
import { HANGS, runningOf, trackTestManagers } from '../testing/test-manager';

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
});
