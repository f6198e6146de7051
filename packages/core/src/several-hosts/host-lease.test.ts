import { describe, expect, it, vi } from 'vitest';
import { createMemoryProcessStorage, INTERRUPTED_ERROR, type ProcessStorage } from '../index';
import { newProcess } from '../testing/new-process';
import { HANGS, runningOf, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('the lease of a host among several', () => {
  it('after being silent longer than its lease, stops the runs another host failed meanwhile and sweeps no one that time', async () => {
    const memory = createMemoryProcessStorage();
    let skew = 0;
    const now = () => new Date(Date.now() + skew);
    // What the host writes of itself and of others, in order, at times of its jumped clock.
    const seen: string[] = [];
    const jumped = (at: string) => Date.parse(at) > Date.now() + 500;
    const storage: ProcessStorage = {
      ...memory,
      heartbeat: async (hostId, beatAt, modules) => {
        if (hostId === 'me' && jumped(beatAt)) seen.push('beat');
        await memory.heartbeat(hostId, beatAt, modules);
      },
      failInterrupted: async (error, failAt, reason, scope) => {
        if (jumped(failAt)) seen.push('sweep');
        return memory.failInterrupted(error, failAt, reason, scope);
      },
    };
    const { manager, api } = await setup({
      storage,
      now,
      host: { id: 'me', heartbeatMs: 20, leaseMs: 200, queuePollMs: 60_000 },
    });
    await manager.recover();
    const mine = await api.create({ code: HANGS, timeoutMs: null });
    const kept = await api.create({ code: HANGS, timeoutMs: null });
    await runningOf(api, mine.id);
    // Another host's run, whose host has not beaten for as long as this one (both cut off).
    await storage.heartbeat('other', now().toISOString());
    const theirs = await storage.insert(
      newProcess({ state: 'queued', createdAt: now().toISOString(), ownerHost: 'other' }),
    );
    // This host is silent for a second; meanwhile another host recorded `mine` as failed.
    const at = new Date(Date.now() + 1_000).toISOString();
    await storage.update(mine.id, {
      state: 'idle',
      exitState: 'failed',
      error: INTERRUPTED_ERROR,
      errorReason: 'process_interrupted',
      completedAt: at,
      updatedAt: at,
    });
    skew = 1_000;
    expect(await api.wait(mine.id, { timeoutMs: 2_000 })).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      error: INTERRUPTED_ERROR,
      errorReason: 'process_interrupted',
    });
    // Beating again, this host fails the runs of the host still silent; the first beat after
    // the silence swept no one. `kept`, not failed elsewhere, runs on.
    await vi.waitFor(async () => expect((await storage.get(theirs))?.state).toBe('idle'), { timeout: 2_000 });
    expect(seen.slice(0, 3)).toEqual(['beat', 'beat', 'sweep']);
    expect((await api.get(kept.id)).state).toBe('running');
  });
});
