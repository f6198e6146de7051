import { describe, expect, it } from 'vitest';
import { createMemoryProcessStorage, type ProcessStorage } from '../index';
import { trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('the reads of processes', () => {
  it('lists newest first with filters and cursor pagination', async () => {
    const { api } = await setup();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await api.create({ code: `cyrnel.log(${i})`, ref: i % 2 ? 'odd' : 'even', autorun: i < 3 })).id,
      );
    }
    await Promise.all(ids.slice(0, 3).map((id) => api.wait(id)));
    const first = await api.list({ limit: 2 });
    expect(first.items.map((p) => p.id)).toEqual([ids[4], ids[3]]);
    expect(first.hasMore).toBe(true);
    const second = await api.list({ limit: 2, cursor: first.nextCursor as string });
    expect(second.items.map((p) => p.id)).toEqual([ids[2], ids[1]]);
    const third = await api.list({ limit: 2, cursor: second.nextCursor as string });
    expect(third).toMatchObject({ hasMore: false, nextCursor: null });
    expect(third.items.map((p) => p.id)).toEqual([ids[0]]);
    expect((await api.list({ ref: 'odd' })).items.map((p) => p.id)).toEqual([ids[3], ids[1]]);
    expect((await api.list({ exitState: 'success' })).items).toHaveLength(3);
    expect(
      (await api.list({ state: 'idle', exitState: 'success', ref: 'even' })).items.map((p) => p.id),
    ).toEqual([ids[2], ids[0]]);
    expect((await api.list({ limit: 500 })).items).toHaveLength(5);
    await expect(api.list({ cursor: 'garbage' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api.list({ limit: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api.list({ limit: 1.5 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api.list({ state: 'done' as never })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('lists only what matches its filters while a finished run is still being written', async () => {
    const memory = createMemoryProcessStorage();
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // The end of a run reaches the store late: the run is idle in memory, `running` when stored.
    const storage: ProcessStorage = {
      ...memory,
      finish: async (...args) => {
        await gate;
        return memory.finish(...args);
      },
    };
    const { api } = await setup({ storage });
    const { id } = await api.create({ code: 'cyrnel.log("done")' });
    await new Promise<void>((resolve) => {
      api.subscribe(id, (event) => {
        if (event.type === 'exit') resolve();
      });
    });
    expect((await api.get(id)).state).toBe('idle');
    // Stored as it was inserted: a run this short has its start written with its end .
    expect((await memory.get(id))?.state).not.toBe('idle');
    const listing = api.list({ state: 'running' });
    open();
    const { items } = await listing;
    expect(items.filter((item) => item.state !== 'running')).toEqual([]);
    expect((await api.list({ state: 'idle' })).items).toMatchObject([
      { id, state: 'idle', exitState: 'success' },
    ]);
  });
});
