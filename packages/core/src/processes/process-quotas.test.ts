import { describe, expect, it } from 'vitest';
import { isCyrnelError } from '../errors';
import { trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('the stored-bytes quota per key', () => {
  it('refuses creates and re-runs of a key at its quota (429 with the bound and what to do), others go on', async () => {
    const { api, storage } = await setup({ limits: { maxStoredBytesPerKey: 4000 } });
    const big = await api.create({ code: `cyrnel.log('x'.repeat(5000))` }, { keyId: 'k1' });
    await api.wait(big.id);
    expect((await storage.keyUsage('k1')).storedBytes).toBeGreaterThan(5000);

    const refused = await rejection(api.create({ code: '1' }, { keyId: 'k1' }));
    expect(isCyrnelError(refused)).toBe(true);
    expect(refused).toMatchObject({
      status: 429,
      code: 'quota_exceeded',
      reason: 'storage_quota_exceeded',
      message: expect.stringMatching(
        /storage quota of 4000 bytes: delete processes .*DELETE \/processes\/:id/,
      ),
    });
    await expect(api.run(big.id, { force: true })).rejects.toMatchObject({
      reason: 'storage_quota_exceeded',
    });
    // Another key and processes without a key are not bound by k1's quota.
    await api.wait((await api.create({ code: '1' }, { keyId: 'k2' })).id);
    await api.wait((await api.create({ code: `cyrnel.log('y'.repeat(5000))` })).id);

    // Deleting what it holds gives the key room again.
    await api.delete(big.id);
    expect(await storage.keyUsage('k1')).toEqual({ storedBytes: 0, processes: 0 });
    await api.wait((await api.create({ code: '1' }, { keyId: 'k1' })).id);
  });

  it('has no bound at 0', async () => {
    const { api } = await setup({ limits: { maxStoredBytesPerKey: 0 } });
    await api.wait((await api.create({ code: `cyrnel.log('x'.repeat(5000))` }, { keyId: 'k1' })).id);
    await api.wait((await api.create({ code: '1' }, { keyId: 'k1' })).id);
  });
});

describe('retention', () => {
  it('prunes idle processes older than the retention (by the manager clock), never live or younger ones', async () => {
    let clock = Date.parse('2026-03-01T00:00:00.000Z');
    const { api, manager, storage } = await setup({
      limits: { retentionMs: 60_000, retentionPerKey: 0, retentionBatch: 2 },
      now: () => new Date(clock),
    });
    const old: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { id } = await api.create({ code: `cyrnel.log('${i}')` }, { keyId: 'k1' });
      await api.wait(id);
      old.push(id);
    }
    const idleOld = await api.create({ code: '1', autorun: false });
    const usageBefore = await storage.keyUsage('k1');
    expect(usageBefore.processes).toBe(5);
    clock += 60_001;
    const young = await api.create({ code: '2' }, { keyId: 'k1' });
    await api.wait(young.id);
    // Several batches of two in one pass.
    expect(await manager.prune()).toBe(6);
    for (const id of [...old, idleOld.id])
      await expect(api.get(id)).rejects.toMatchObject({ reason: 'process_not_found' });
    expect(await api.get(young.id)).toMatchObject({ exitState: 'success' });
    const usage = await storage.keyUsage('k1');
    expect(usage.processes).toBe(1);
    expect(usage.storedBytes).toBeLessThan(usageBefore.storedBytes / 4);
    expect(await manager.prune()).toBe(0);
  });

  it('keeps the newest processes of each key', async () => {
    const { api, manager } = await setup({ limits: { retentionMs: 0, retentionPerKey: 2 } });
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const { id } = await api.create({ code: '1' }, { keyId: 'k1' });
      await api.wait(id);
      ids.push(id);
    }
    const other = await api.create({ code: '1' }, { keyId: 'k2' });
    await api.wait(other.id);
    expect(await manager.prune()).toBe(2);
    expect((await api.list({ limit: 10 })).items.map((p) => p.id)).toEqual([other.id, ids[3], ids[2]]);
  });
});
