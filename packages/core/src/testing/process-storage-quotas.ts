import type { ToolCallRecord } from '@cyrnel/sdk/api';
import { expect, it } from 'vitest';
import { CALL_ROW_BYTES, type IndexedCall, type ProcessStorage, storedProcessBytes } from '../index';
import { AT, newProcess } from './new-process';

const CALL: ToolCallRecord = {
  serviceId: 'shop',
  toolId: 'getUser',
  startedAt: AT,
  durationMs: 3,
  ok: true,
  errorCode: null,
  errorReason: null,
  decision: null,
  resultBytes: 40,
};

/** `count` stored calls, as a run's end writes them. */
const calls = (count: number): IndexedCall[] =>
  Array.from({ length: count }, (_, index) => ({ index, call: CALL }));

const ENDED = { state: 'idle', exitState: 'success', updatedAt: AT } as const;

/** The bytes a fresh process with `code` and no results counts. */
const fresh = (code: string, envConfig = '{}') =>
  storedProcessBytes({ code, envConfig, output: '{}', stdout: '', stderr: '' });

/** Prune with `rule` in batches of `limit` until nothing is left to prune; answers the batches' sizes. */
async function pruneAll(
  storage: ProcessStorage,
  rule: { idleBefore?: string; keepPerKey?: number },
  limit: number,
) {
  const batches: number[] = [];
  for (;;) {
    const deleted = await storage.pruneIdle({ ...rule, limit });
    batches.push(deleted);
    if (deleted < limit) return batches;
  }
}

/** What the quota and retention rely on: per-key totals kept by every write, and pruning in batches. */
export function quotaCases(current: () => ProcessStorage): void {
  it('keeps a per-key total of stored bytes (UTF-8 bytes, calls included) through insert, finish, reset and delete', async () => {
    const storage = current();
    expect(await storage.keyUsage('k1')).toEqual({ storedBytes: 0, processes: 0 });
    const code = 'const é = "ü"; cyrnel.output({ é });';
    const id = await storage.insert(newProcess({ keyId: 'k1', code, envConfig: { mode: 'ß' } }));
    const inserted = fresh(code, JSON.stringify({ mode: 'ß' }));
    expect(inserted).toBeGreaterThan(code.length + 256);
    expect(await storage.keyUsage('k1')).toEqual({ storedBytes: inserted, processes: 1 });

    const results = { output: { text: '€'.repeat(100) }, stdout: 'ö'.repeat(1000), stderr: 'err' };
    await storage.finish(id, ENDED, results, calls(3));
    const finished =
      storedProcessBytes({
        code,
        envConfig: JSON.stringify({ mode: 'ß' }),
        output: JSON.stringify(results.output),
        stdout: results.stdout,
        stderr: results.stderr,
      }) +
      3 * CALL_ROW_BYTES;
    expect(await storage.keyUsage('k1')).toEqual({ storedBytes: finished, processes: 1 });

    await storage.reset(id, { state: 'queued', exitState: null, updatedAt: AT });
    expect(await storage.keyUsage('k1')).toEqual({ storedBytes: inserted, processes: 1 });
    await storage.finish(id, ENDED, results, calls(1));
    expect((await storage.keyUsage('k1')).storedBytes).toBe(finished - 2 * CALL_ROW_BYTES);

    // State changes alone leave the total as it is.
    await storage.update(id, { state: 'idle', error: 'x', updatedAt: AT });
    expect((await storage.keyUsage('k1')).storedBytes).toBe(finished - 2 * CALL_ROW_BYTES);

    expect(await storage.delete(id)).toBe(true);
    expect(await storage.keyUsage('k1')).toEqual({ storedBytes: 0, processes: 0 });
  });

  it('counts each key apart, and processes without a key for no one', async () => {
    const storage = current();
    await storage.insert(newProcess({ keyId: 'k1', code: 'a' }));
    await storage.insert(newProcess({ keyId: 'k1', code: 'bb' }));
    await storage.insert(newProcess({ keyId: 'k2', code: 'ccc' }));
    await storage.insert(newProcess({ keyId: null, code: 'x'.repeat(10_000) }));
    expect(await storage.keyUsage('k1')).toEqual({ storedBytes: fresh('a') + fresh('bb'), processes: 2 });
    expect(await storage.keyUsage('k2')).toEqual({ storedBytes: fresh('ccc'), processes: 1 });
    expect(await storage.keyUsage('nobody')).toEqual({ storedBytes: 0, processes: 0 });
  });

  it('prunes idle processes last changed before a time, in batches, never live ones, and lowers the totals', async () => {
    const storage = current();
    const old = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await storage.insert(newProcess({ keyId: 'k1', createdAt: old(i) }));
      await storage.finish(
        id,
        { ...ENDED, updatedAt: old(i) },
        { output: {}, stdout: 'x', stderr: '' },
        calls(1),
      );
      ids.push(id);
    }
    // Old but live: a run in progress is never pruned.
    const running = await storage.insert(newProcess({ keyId: 'k1', state: 'queued', createdAt: old(0) }));
    await storage.update(running, { state: 'running', updatedAt: old(1) });
    // Old, idle and without a key: age applies to every process.
    const keyless = await storage.insert(newProcess({ createdAt: old(0) }));
    const young = await storage.insert(newProcess({ keyId: 'k1', createdAt: old(30) }));

    expect(await pruneAll(storage, { idleBefore: old(3) }, 2)).toEqual([2, 2, 0]);
    for (const id of [ids[0], ids[1], ids[2], keyless])
      expect(await storage.get(id as number)).toBeUndefined();
    expect(await storage.calls(ids[0] as number)).toEqual([]);
    for (const id of [ids[3], ids[4], running, young]) expect(await storage.get(id as number)).toBeDefined();
    const left = await storage.keyUsage('k1');
    expect(left.processes).toBe(4);
    const oneEnded = storedProcessBytes({
      code: newProcess().code,
      envConfig: '{}',
      output: '{}',
      stdout: 'x',
      stderr: '',
    });
    expect(left.storedBytes).toBe(2 * (oneEnded + CALL_ROW_BYTES) + 2 * fresh(newProcess().code));
    // Pruning again finds nothing: deletes are idempotent.
    expect(await storage.pruneIdle({ idleBefore: old(3), limit: 10 })).toBe(0);
  });

  it('deletes each process once when several hosts prune at the same time', async () => {
    const storage = current();
    const old = '2026-01-01T00:00:00.000Z';
    for (let i = 0; i < 12; i++) {
      const id = await storage.insert(newProcess({ keyId: i % 2 === 0 ? 'k1' : 'k2', createdAt: old }));
      await storage.finish(
        id,
        { ...ENDED, updatedAt: old },
        { output: {}, stdout: 'x', stderr: '' },
        calls(1),
      );
    }
    const rule = { idleBefore: '2026-02-01T00:00:00.000Z', limit: 5 };
    const rounds = await Promise.all([
      pruneAll(storage, rule, 5),
      pruneAll(storage, rule, 5),
      pruneAll(storage, rule, 5),
    ]);
    // A pass that met another's rows stops early; the next pass (the next interval) takes the rest.
    const after = await pruneAll(storage, rule, 5);
    expect([...rounds.flat(), ...after].reduce((sum, deleted) => sum + deleted, 0)).toBe(12);
    expect(await storage.keyUsage('k1')).toEqual({ storedBytes: 0, processes: 0 });
    expect(await storage.keyUsage('k2')).toEqual({ storedBytes: 0, processes: 0 });
  });

  it('keeps the newest processes of each key and prunes the idle ones beyond them', async () => {
    const storage = current();
    const of = async (keyId: string | null, count: number) => {
      const ids: number[] = [];
      for (let i = 0; i < count; i++) {
        const id = await storage.insert(newProcess({ keyId }));
        await storage.finish(id, ENDED, { output: {}, stdout: '', stderr: '' }, []);
        ids.push(id);
      }
      return ids;
    };
    const k1 = await of('k1', 6);
    const k2 = await of('k2', 2);
    const keyless = await of(null, 5);
    // A live one beyond the bound stays.
    await storage.update(k1[0] as number, { state: 'running', updatedAt: AT });

    expect(await pruneAll(storage, { keepPerKey: 3 }, 1)).toEqual([1, 1, 0]);
    expect((await storage.list({ keyId: 'k1', limit: 10 })).map((p) => p.id)).toEqual([
      k1[5],
      k1[4],
      k1[3],
      k1[0],
    ]);
    expect(await storage.keyUsage('k1')).toMatchObject({ processes: 4 });
    expect(await storage.keyUsage('k2')).toMatchObject({ processes: 2 });
    expect((await storage.list({ limit: 20 })).length).toBe(4 + k2.length + keyless.length);
  });
}
