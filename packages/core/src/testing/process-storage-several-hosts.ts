import { expect, it } from 'vitest';
import type { NewProcess, ProcessStorage } from '../index';
import { AT, newProcess } from './new-process';

/** What hosts sharing the storage rely on: owners, heartbeats, the shared queue, kill requests. */
export function severalHostsCases(current: () => ProcessStorage): void {
  it('fails only the runs of this host, of silent hosts and (when asked) of no host: never a live host’s', async () => {
    const storage = current();
    const running = async (ownerHost: string | null) => {
      const id = await storage.insert(newProcess({ state: 'queued', ownerHost }));
      await storage.update(id, { state: 'running', updatedAt: AT });
      return id;
    };
    await storage.heartbeat('live', '2026-01-01T00:00:10.000Z');
    await storage.heartbeat('silent', '2026-01-01T00:00:01.000Z');
    await storage.heartbeat('me', '2026-01-01T00:00:10.000Z');
    const ofLive = await running('live');
    const ofSilent = await running('silent');
    const ofMe = await running('me');
    const ofUnknown = await running('never-seen');
    const ofNobody = await running(null);
    // Queued without an owner: work in the shared queue, no leftover.
    const waiting = await storage.insert(newProcess({ state: 'queued', ownerHost: null }));
    const at = '2026-01-01T00:00:12.000Z';
    const staleBefore = '2026-01-01T00:00:05.000Z';
    // A sweep: the silent and the unknown host's runs only.
    expect(await storage.failInterrupted('gone', at, 'process_interrupted', { staleBefore })).toBe(2);
    expect((await storage.get(ofSilent))?.state).toBe('idle');
    expect((await storage.get(ofUnknown))?.state).toBe('idle');
    for (const id of [ofLive, ofMe, ofNobody]) expect((await storage.get(id))?.state).toBe('running');
    // A start of host `me`: its own leftovers and the unowned ones, still never the live host's.
    expect(
      await storage.failInterrupted('gone', at, 'process_interrupted', {
        staleBefore,
        hostId: 'me',
        unowned: true,
      }),
    ).toBe(2);
    expect(await storage.get(ofMe)).toMatchObject({ state: 'idle', exitState: 'failed', error: 'gone' });
    expect((await storage.get(ofNobody))?.state).toBe('idle');
    expect((await storage.get(ofLive))?.state).toBe('running');
    expect((await storage.get(waiting))?.state).toBe('queued');
    // A heartbeat keeps a host alive; a removed host's runs are anyone's to fail.
    await storage.heartbeat('live', '2026-01-01T00:00:20.000Z');
    expect(
      await storage.failInterrupted('gone', at, 'process_interrupted', {
        staleBefore: '2026-01-01T00:00:15.000Z',
      }),
    ).toBe(0);
    await storage.removeHost('live');
    expect(
      await storage.failInterrupted('gone', at, 'process_interrupted', {
        staleBefore: '2026-01-01T00:00:15.000Z',
      }),
    ).toBe(1);
    // The owner is not part of the record.
    expect(Object.keys((await storage.get(ofLive)) ?? {})).not.toContain('ownerHost');
  });

  it('names the owner of a run with its heartbeat, and passes kill requests to it once', async () => {
    const storage = current();
    await storage.heartbeat('a', '2026-01-01T00:00:30.000Z');
    const id = await storage.insert(newProcess({ state: 'queued', ownerHost: 'a' }));
    const none = await storage.insert(newProcess({ state: 'queued' }));
    expect(await storage.owner(id)).toEqual({ hostId: 'a', heartbeatAt: '2026-01-01T00:00:30.000Z' });
    expect(await storage.owner(none)).toEqual({ hostId: null, heartbeatAt: null });
    expect(await storage.owner(999_999)).toBeUndefined();
    expect(await storage.takeKillRequests('a')).toEqual([]);
    await storage.requestKill(id, AT);
    expect(await storage.takeKillRequests('b')).toEqual([]);
    expect(await storage.takeKillRequests('a')).toEqual([{ id, reason: null }]);
    expect(await storage.takeKillRequests('a')).toEqual([]);
    // A kill for a reason (its key was deleted) hands the reason to the owner, once.
    await storage.requestKill(id, AT, 'key_revoked');
    expect(await storage.takeKillRequests('a')).toEqual([{ id, reason: 'key_revoked' }]);
    expect(await storage.takeKillRequests('a')).toEqual([]);
    // Nothing to kill in an idle process; a re-run forgets an old request.
    const idle = await storage.insert(newProcess({ ownerHost: 'a' }));
    await storage.requestKill(idle, AT);
    expect(await storage.takeKillRequests('a')).toEqual([]);
    await storage.requestKill(id, AT);
    await storage.reset(id, { state: 'queued', ownerHost: 'a', updatedAt: AT });
    expect(await storage.takeKillRequests('a')).toEqual([]);
  });

  it('hands each queued process without an owner to exactly one host, oldest first, never one that needs a lacking module', async () => {
    const storage = current();
    const queued = (fields: Partial<NewProcess> = {}) =>
      storage.insert(newProcess({ state: 'queued', ownerHost: null, ...fields }));
    const plain = await queued({ needs: ['env'], code: 'one' });
    const withMcp = await queued({ needs: ['env', 'mcp'], keyId: 'k' });
    const second = await queued({ needs: ['env'], keyId: 'k' });
    const rest = [await queued(), await queued({ needs: ['env', 'mcp-extra'] }), await queued()];
    const owned = await queued({ ownerHost: 'x' });
    await storage.insert(newProcess({ state: 'idle' }));
    expect(await storage.countUnclaimed()).toBe(6);
    expect(await storage.countUnclaimed('k')).toBe(2);
    const at = '2026-01-01T00:01:00.000Z';
    const first = await storage.claim('a', at, { limit: 2, lacking: ['mcp'] });
    expect(first.map(({ record }) => record.id)).toEqual([plain, second]);
    expect(first[0]).toMatchObject({
      code: 'one',
      record: { state: 'queued', hostId: 'a', updatedAt: at },
    });
    expect(await storage.owner(plain)).toMatchObject({ hostId: 'a' });
    // `mcp` is not `mcp-extra`: only whole ids are lacking.
    expect(await storage.countUnclaimed()).toBe(4);
    // Hosts claiming at once: every process once, none twice, none left.
    const claims = await Promise.all(
      ['b', 'c', 'd'].map((host) => storage.claim(host, at, { limit: 10, lacking: [] })),
    );
    const ids = claims.flat().map(({ record }) => record.id);
    expect(ids.sort((x, y) => x - y)).toEqual([withMcp, ...rest].sort((x, y) => x - y));
    expect(await storage.countUnclaimed()).toBe(0);
    expect(await storage.claim('a', at, { limit: 10, lacking: [] })).toEqual([]);
    expect(await storage.owner(owned)).toMatchObject({ hostId: 'x' });
    expect(await storage.claim('a', at, { limit: 0, lacking: [] })).toEqual([]);
  });

  it('hands the host that claims a process the trace context it was queued with, and a re-run its own', async () => {
    const storage = current();
    const traced = JSON.stringify({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    const withTrace = await storage.insert(
      newProcess({ state: 'queued', ownerHost: null, traceContext: traced }),
    );
    const without = await storage.insert(newProcess({ state: 'queued', ownerHost: null }));
    const claimed = await storage.claim('a', AT, { limit: 10, lacking: [] });
    const byId = new Map(claimed.map((item) => [item.record.id, item.traceContext ?? null]));
    expect(byId.get(withTrace)).toBe(traced);
    expect(byId.get(without)).toBeNull();
    // A re-run left to the queue replaces it (null: the new request had none).
    await storage.update(withTrace, { state: 'idle', exitState: 'success', updatedAt: AT });
    const again = JSON.stringify({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    await storage.reset(withTrace, { state: 'queued', ownerHost: null, traceContext: again, updatedAt: AT });
    const [rerun] = await storage.claim('b', AT, { limit: 10, lacking: [] });
    expect(rerun?.traceContext).toBe(again);
  });

  it('kills work still in the shared queue only while no host took it', async () => {
    const storage = current();
    const id = await storage.insert(newProcess({ state: 'queued', ownerHost: null }));
    const change = { state: 'idle', exitState: 'canceled', updatedAt: AT } as const;
    const taken = await storage.insert(newProcess({ state: 'queued', ownerHost: null }));
    await storage.claim('a', AT, { limit: 10, lacking: [] });
    expect(await storage.updateUnclaimed(taken, change)).toBe(false);
    expect((await storage.get(taken))?.state).toBe('queued');
    const waiting = await storage.insert(newProcess({ state: 'queued', ownerHost: null }));
    expect(await storage.updateUnclaimed(waiting, change)).toBe(true);
    expect(await storage.get(waiting)).toMatchObject({ state: 'idle', exitState: 'canceled' });
    expect(await storage.updateUnclaimed(waiting, change)).toBe(false);
    expect(await storage.updateUnclaimed(999_999, change)).toBe(false);
    expect((await storage.get(id))?.hostId).toBe('a');
  });

  it('keeps what each host says it has and lists the hosts alive since a time', async () => {
    const storage = current();
    await storage.heartbeat('a', '2026-01-01T00:00:10.000Z', { openapi: 'active', mine: 'failed' });
    await storage.heartbeat('b', '2026-01-01T00:00:01.000Z', { openapi: 'inactive' });
    // A heartbeat without modules keeps those said before.
    await storage.heartbeat('a', '2026-01-01T00:00:20.000Z');
    expect(await storage.hosts('2026-01-01T00:00:05.000Z')).toEqual([
      { id: 'a', heartbeatAt: '2026-01-01T00:00:20.000Z', modules: { openapi: 'active', mine: 'failed' } },
    ]);
    expect((await storage.hosts('2026-01-01T00:00:00.000Z')).map((host) => host.id)).toEqual(['a', 'b']);
    await storage.heartbeat('b', '2026-01-01T00:00:21.000Z', {});
    expect((await storage.hosts('2026-01-01T00:00:21.000Z'))[0]).toEqual({
      id: 'b',
      heartbeatAt: '2026-01-01T00:00:21.000Z',
      modules: {},
    });
  });

  it('moves a re-run to the host that claims it', async () => {
    const storage = current();
    await storage.heartbeat('a', '2026-01-01T00:00:00.000Z');
    await storage.heartbeat('b', '2026-01-01T00:00:30.000Z');
    const id = await storage.insert(newProcess({ state: 'queued', ownerHost: 'a' }));
    await storage.reset(id, { state: 'queued', ownerHost: 'b', updatedAt: AT });
    await storage.update(id, { state: 'running', updatedAt: AT });
    // Host a is silent, but the run is b's now.
    expect(
      await storage.failInterrupted('gone', AT, 'process_interrupted', {
        staleBefore: '2026-01-01T00:00:10.000Z',
      }),
    ).toBe(0);
  });
}
