import type { ToolCallRecord } from '@cyrnel/sdk/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewProcess, ProcessStorage } from '../index';

/** A storage under test and how to release it. */
export interface StorageUnderTest<T> {
  readonly storage: T;
  /** Release it (close the database, remove its files). */
  close(): Promise<void>;
}

/** Options of {@link runProcessStorageContract}. */
export interface ProcessStorageContractOptions {
  /** Shown in the suite's name, e.g. `sqlite`. */
  readonly name: string;
  /** A fresh, empty storage for each test. */
  create(): Promise<StorageUnderTest<ProcessStorage>>;
}

const AT = '2026-01-01T00:00:00.000Z';

/** A process as the manager inserts it, with `fields` over the defaults. */
export function newProcess(fields: Partial<NewProcess> = {}): NewProcess {
  return {
    ref: null,
    keyId: null,
    code: 'cyrnel.output({ ok: true })',
    state: 'idle',
    timeoutMs: null,
    envConfig: {},
    createdAt: AT,
    ...fields,
  };
}

const CALL: ToolCallRecord = {
  serviceId: 'shop',
  toolId: 'getUser',
  startedAt: AT,
  durationMs: 12,
  ok: false,
  errorCode: 'conflict',
  errorReason: 'tool_disabled',
};

/**
 * The contract of core's `ProcessStorage` port as a Vitest suite: what the process manager relies
 * on from any store (ids, partial updates, atomic finish and reset, newest-first pages with
 * filters, deletion, recovery of interrupted runs). Call it at the top level of a test file.
 *
 * @example
 * ```ts
 * import { createMemoryProcessStorage } from '@cyrnel/core';
 * import { runProcessStorageContract } from '@cyrnel/core/testing';
 *
 * runProcessStorageContract({
 *   name: 'memory',
 *   create: async () => ({ storage: createMemoryProcessStorage(), close: async () => {} }),
 * });
 * ```
 */
export function runProcessStorageContract(options: ProcessStorageContractOptions): void {
  describe(`ProcessStorage contract: ${options.name}`, () => {
    let subject: StorageUnderTest<ProcessStorage>;
    let storage: ProcessStorage;
    beforeEach(async () => {
      subject = await options.create();
      storage = subject.storage;
    });
    afterEach(async () => {
      await subject.close();
    });

    it('answers increasing positive ids and reads back what was inserted', async () => {
      const first = await storage.insert(
        newProcess({ ref: 'r1', keyId: 'k1', timeoutMs: 500, envConfig: { a: [1, { b: 'c' }] } }),
      );
      const second = await storage.insert(newProcess({ state: 'queued', code: 'const x = "é";' }));
      expect(first).toBeGreaterThan(0);
      expect(second).toBeGreaterThan(first);
      expect(await storage.get(first)).toEqual({
        id: first,
        ref: 'r1',
        keyId: 'k1',
        state: 'idle',
        exitState: null,
        error: null,
        errorReason: null,
        timeoutMs: 500,
        envConfig: { a: [1, { b: 'c' }] },
        createdAt: AT,
        updatedAt: AT,
        startedAt: null,
        completedAt: null,
        hostId: null,
      });
      expect((await storage.get(second))?.state).toBe('queued');
      expect(await storage.code(second)).toBe('const x = "é";');
      expect(await storage.results(first)).toEqual({ output: {}, stdout: '', stderr: '' });
      expect(await storage.calls(first)).toEqual([]);
    });

    it('answers undefined (or nothing) for unknown ids', async () => {
      expect(await storage.get(987_654)).toBeUndefined();
      expect(await storage.code(987_654)).toBeUndefined();
      expect(await storage.results(987_654)).toBeUndefined();
      expect(await storage.calls(987_654)).toEqual([]);
      expect(await storage.delete(987_654)).toBe(false);
    });

    it('changes only the fields an update names', async () => {
      const id = await storage.insert(newProcess({ ref: 'keep' }));
      await storage.update(id, {
        state: 'running',
        startedAt: '2026-01-01T00:00:01.000Z',
        updatedAt: '2026-01-01T00:00:01.000Z',
      });
      expect(await storage.get(id)).toMatchObject({
        ref: 'keep',
        state: 'running',
        exitState: null,
        startedAt: '2026-01-01T00:00:01.000Z',
        updatedAt: '2026-01-01T00:00:01.000Z',
        completedAt: null,
      });
    });

    it('stores the end of a run (state, results, calls) together, and a reset clears them', async () => {
      const id = await storage.insert(newProcess());
      const end = {
        state: 'idle',
        exitState: 'failed',
        error: 'boom',
        errorReason: 'process_timeout',
        completedAt: '2026-01-01T00:00:02.000Z',
        updatedAt: '2026-01-01T00:00:02.000Z',
      } as const;
      const results = { output: { n: 1, nested: { s: 'ü' } }, stdout: 'out\n', stderr: 'err\n' };
      await storage.finish(id, end, results, [
        CALL,
        { ...CALL, toolId: 'listOrders', ok: true, errorCode: null, errorReason: null },
      ]);
      expect(await storage.get(id)).toMatchObject(end);
      expect(await storage.results(id)).toEqual(results);
      expect((await storage.calls(id)).map((call) => call.toolId)).toEqual(['getUser', 'listOrders']);
      expect((await storage.calls(id))[0]).toEqual(CALL);

      await storage.reset(id, {
        state: 'queued',
        exitState: null,
        error: null,
        errorReason: null,
        completedAt: null,
        updatedAt: '2026-01-01T00:00:03.000Z',
      });
      expect(await storage.get(id)).toMatchObject({
        state: 'queued',
        exitState: null,
        error: null,
        errorReason: null,
      });
      expect(await storage.results(id)).toEqual({ output: {}, stdout: '', stderr: '' });
      expect(await storage.calls(id)).toEqual([]);
    });

    it('lists newest first, filtered and paged, without envConfig', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          await storage.insert(
            newProcess({ ref: i % 2 === 0 ? 'even' : 'odd', keyId: i < 2 ? 'k1' : 'k2', envConfig: { i } }),
          ),
        );
      }
      await storage.finish(
        ids[1] as number,
        { state: 'idle', exitState: 'success', updatedAt: AT },
        { output: {}, stdout: '', stderr: '' },
        [],
      );
      await storage.update(ids[2] as number, { state: 'queued', updatedAt: AT });
      const all = await storage.list({ limit: 10 });
      expect(all.map((summary) => summary.id)).toEqual([...ids].reverse());
      expect(all.every((summary) => !('envConfig' in summary))).toBe(true);
      expect((await storage.list({ limit: 10, ref: 'even' })).map((s) => s.id)).toEqual([
        ids[4],
        ids[2],
        ids[0],
      ]);
      expect((await storage.list({ limit: 10, keyId: 'k1' })).map((s) => s.id)).toEqual([ids[1], ids[0]]);
      expect((await storage.list({ limit: 10, state: 'queued' })).map((s) => s.id)).toEqual([ids[2]]);
      expect((await storage.list({ limit: 10, exitState: 'success' })).map((s) => s.id)).toEqual([ids[1]]);
      expect((await storage.list({ limit: 2 })).map((s) => s.id)).toEqual([ids[4], ids[3]]);
      expect((await storage.list({ limit: 2, beforeId: ids[3] })).map((s) => s.id)).toEqual([ids[2], ids[1]]);
    });

    it('deletes a process with its calls and results', async () => {
      const id = await storage.insert(newProcess());
      await storage.finish(
        id,
        { state: 'idle', exitState: 'success', updatedAt: AT },
        { output: { a: 1 }, stdout: 'x', stderr: '' },
        [CALL],
      );
      expect(await storage.delete(id)).toBe(true);
      expect(await storage.get(id)).toBeUndefined();
      expect(await storage.calls(id)).toEqual([]);
      expect(await storage.delete(id)).toBe(false);
      // Ids are never reused.
      expect(await storage.insert(newProcess())).toBeGreaterThan(id);
    });

    it('records runs a stopped host left queued, running or terminating as failed, with the reason', async () => {
      const idle = await storage.insert(newProcess());
      const queued = await storage.insert(newProcess({ state: 'queued' }));
      const running = await storage.insert(newProcess());
      await storage.update(running, { state: 'running', updatedAt: AT });
      const terminating = await storage.insert(newProcess());
      await storage.update(terminating, { state: 'terminating', updatedAt: AT });
      const at = '2026-01-02T00:00:00.000Z';
      expect(await storage.failInterrupted('interrupted: the host stopped', at, 'process_interrupted')).toBe(
        3,
      );
      for (const id of [queued, running, terminating]) {
        expect(await storage.get(id)).toMatchObject({
          state: 'idle',
          exitState: 'failed',
          error: 'interrupted: the host stopped',
          errorReason: 'process_interrupted',
          completedAt: at,
        });
      }
      expect(await storage.get(idle)).toMatchObject({ state: 'idle', exitState: null, error: null });
      expect(await storage.failInterrupted('again', at, 'process_interrupted')).toBe(0);
    });

    it('fails only the runs of this host, of silent hosts and (when asked) of no host: never a live host’s (issue 22)', async () => {
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

    it('names the owner of a run with its heartbeat, and passes kill requests to it once (issue 22)', async () => {
      await storage.heartbeat('a', '2026-01-01T00:00:30.000Z');
      const id = await storage.insert(newProcess({ state: 'queued', ownerHost: 'a' }));
      const none = await storage.insert(newProcess({ state: 'queued' }));
      expect(await storage.owner(id)).toEqual({ hostId: 'a', heartbeatAt: '2026-01-01T00:00:30.000Z' });
      expect(await storage.owner(none)).toEqual({ hostId: null, heartbeatAt: null });
      expect(await storage.owner(999_999)).toBeUndefined();
      expect(await storage.takeKillRequests('a')).toEqual([]);
      await storage.requestKill(id, AT);
      expect(await storage.takeKillRequests('b')).toEqual([]);
      expect(await storage.takeKillRequests('a')).toEqual([id]);
      expect(await storage.takeKillRequests('a')).toEqual([]);
      // Nothing to kill in an idle process; a re-run forgets an old request.
      const idle = await storage.insert(newProcess({ ownerHost: 'a' }));
      await storage.requestKill(idle, AT);
      expect(await storage.takeKillRequests('a')).toEqual([]);
      await storage.requestKill(id, AT);
      await storage.reset(id, { state: 'queued', ownerHost: 'a', updatedAt: AT });
      expect(await storage.takeKillRequests('a')).toEqual([]);
    });

    it('hands each queued process without an owner to exactly one host, oldest first, never one that needs a lacking module (issue 22)', async () => {
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

    it('kills work still in the shared queue only while no host took it (issue 22)', async () => {
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

    it('keeps what each host says it has and lists the hosts alive since a time (issue 22)', async () => {
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
  });
}
