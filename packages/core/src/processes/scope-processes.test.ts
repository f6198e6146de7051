import { describe, expect, it } from 'vitest';
import { scopeProcesses } from '../index';
import { HANGS, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('scopeProcesses', () => {
  it('stores the creating key and hides other keys’ processes behind 404s', async () => {
    const { api } = await setup();
    const alice = scopeProcesses(api, { keyId: 'alice', ownOnly: true });
    const bob = scopeProcesses(api, { keyId: 'bob', ownOnly: true });
    const admin = scopeProcesses(api, { keyId: 'root', ownOnly: false });
    const mine = await alice.create({ code: 'cyrnel.output({ a: 1 })' });
    expect(mine.keyId).toBe('alice');
    expect((await alice.wait(mine.id)).output).toEqual({ a: 1 });
    const theirs = await bob.create({ code: HANGS, timeoutMs: null });
    const byAdmin = await admin.create({ code: 'x', autorun: false });
    expect(byAdmin.keyId).toBe('root');
    expect((await alice.list()).items.map((p) => p.id)).toEqual([mine.id]);
    expect((await alice.list({ keyId: 'bob' })).items.map((p) => p.id)).toEqual([mine.id]);
    expect((await admin.list()).items.map((p) => p.id)).toEqual([byAdmin.id, theirs.id, mine.id]);
    expect((await api.list({ keyId: 'bob' })).items.map((p) => p.id)).toEqual([theirs.id]);
    const calls = [
      () => alice.get(theirs.id),
      () => alice.code(theirs.id),
      () => alice.stdout(theirs.id),
      () => alice.output(theirs.id),
      () => alice.calls(theirs.id),
      () => alice.subscribe(theirs.id, () => {}),
      () => alice.wait(theirs.id),
      () => alice.kill(theirs.id),
      () => alice.run(byAdmin.id),
      () => alice.delete(byAdmin.id),
      () => alice.get(99_999),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ code: 'not_found', status: 404 });
    expect((await api.get(theirs.id)).state).not.toBe('idle');
    expect((await admin.kill(theirs.id)).state).toBe('terminating');
    await alice.delete(mine.id);
  });

  it('bounds live processes per key while other keys and keyless processes still run', async () => {
    const { api } = await setup({ limits: { maxLiveProcessesPerKey: 2 } });
    const alice = scopeProcesses(api, { keyId: 'alice', ownOnly: true });
    const first = await alice.create({ code: HANGS, timeoutMs: null });
    await Promise.all([
      alice.create({ code: HANGS, timeoutMs: null }),
      expect(alice.create({ code: HANGS })).rejects.toMatchObject({
        code: 'too_many_processes',
        status: 429,
      }),
    ]);
    await expect(alice.create({ code: HANGS })).rejects.toThrow(/at most 2 .* per key/);
    expect((await alice.create({ code: 'x', autorun: false })).state).toBe('idle');
    await scopeProcesses(api, { keyId: 'bob', ownOnly: true }).create({ code: HANGS, timeoutMs: null });
    for (let i = 0; i < 3; i++) await api.create({ code: HANGS, timeoutMs: null });
    await alice.kill(first.id);
    await alice.wait(first.id);
    expect((await alice.create({ code: HANGS, timeoutMs: null })).state).toBe('queued');
  });
});
