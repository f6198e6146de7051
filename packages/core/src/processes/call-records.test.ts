import type { ToolCallRecord } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { createMemoryProcessStorage, type IndexedCall, type ProcessStorage } from '../index';
import { runningOf, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

/** A memory storage whose call writes are logged, and the first `openCalls` held until released. */
function heldStorage() {
  const memory = createMemoryProcessStorage();
  const log: string[] = [];
  const batches: IndexedCall[][] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const storage: ProcessStorage = {
    ...memory,
    async openCalls(id, calls, ended = []) {
      if (batches.length === 0) await held;
      if (calls.length > 0) batches.push([...calls]);
      const opened = `open ${calls.map((call) => call.index).join(',')}`;
      log.push(ended.length === 0 ? opened : `${opened} ended ${ended.map((call) => call.index).join(',')}`);
      return memory.openCalls(id, calls, ended);
    },
  };
  return { memory, storage, log, batches, release };
}

/** Poll `read` until `done` holds (each step after a macrotask). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Wait for process `id`'s end and for every write of it (`list` waits for the writes of runs in memory). */
async function ended(api: Awaited<ReturnType<typeof setup>>['api'], id: number) {
  const result = await api.wait(id);
  await api.list({});
  return result;
}

describe('tool call records', () => {
  it('stores a call before its request leaves and completes it by index', async () => {
    const { storage, log, release, memory } = heldStorage();
    const { api } = await setup({
      storage,
      tools: new Map([
        [
          'shop.get',
          async () => {
            log.push('request');
            return { ok: 1 };
          },
        ],
      ]),
    });
    const { id } = await api.create({ code: "await cyrnel.invoke('shop', 'get', {})" });
    await runningOf(api, id);
    const open = await until(
      () => api.calls(id),
      (calls) => calls.length === 1,
    );
    // Held before the store has it: nothing was sent, the call shows as started.
    expect(open).toMatchObject([{ serviceId: 'shop', toolId: 'get', ok: null }]);
    expect(log).toEqual([]);
    release();
    await ended(api, id);
    expect(log.slice(0, 2)).toEqual(['open 0', 'request']);
    expect(await memory.calls(id)).toMatchObject([{ toolId: 'get', ok: true, errorCode: null }]);
  });

  it('writes the starts that arrive while a write is under way together, in the next one', async () => {
    const { storage, batches, release, memory } = heldStorage();
    const { api } = await setup({ storage });
    const { id } = await api.create({
      code: `const first = cyrnel.invoke('math', 'double', { n: -1 });
        await cyrnel.sleep(20);
        await Promise.all([first, ...Array.from({ length: 49 }, (_, n) => cyrnel.invoke('math', 'double', { n }))]);`,
    });
    await until(
      () => api.calls(id),
      (calls) => calls.length === 50,
    );
    release();
    await ended(api, id);
    expect(batches.map((batch) => batch.length)).toEqual([1, 49]);
    const calls = await memory.calls(id);
    expect(calls).toHaveLength(50);
    expect(calls.filter((call: ToolCallRecord) => call.ok !== true)).toEqual([]);
  });

  it("writes a call's end with the run's next start, and a last end alone soon after", async () => {
    const { storage, log, release, memory } = heldStorage();
    release();
    const { api } = await setup({ storage });
    const { id } = await api.create({
      code: `for (let n = 0; n < 3; n++) await cyrnel.invoke('math', 'double', { n });
        await cyrnel.sleep(300);`,
    });
    // The last end is written alone (no start came) while the run still sleeps.
    const calls = await until(
      () => memory.calls(id),
      (stored) => stored.length === 3 && stored.every((call: ToolCallRecord) => call.ok === true),
    );
    expect(calls).toHaveLength(3);
    expect((await api.get(id)).state).toBe('running');
    expect(log).toEqual(['open 0', 'open 1 ended 0', 'open 2 ended 1', 'open  ended 2']);
    await ended(api, id);
  });

  it('refuses a call whose start cannot be stored, without sending it, and keeps it as failed', async () => {
    const memory = createMemoryProcessStorage();
    let sent = 0;
    const storage: ProcessStorage = {
      ...memory,
      openCalls: async () => {
        throw new Error('disk full');
      },
    };
    const { api } = await setup({
      storage,
      tools: new Map([
        [
          'shop.get',
          async () => {
            sent++;
            return 1;
          },
        ],
      ]),
    });
    const { id } = await api.create({
      code: "try { await cyrnel.invoke('shop', 'get', {}) } catch (error) { cyrnel.output({ code: error.code }) }",
    });
    const result = await ended(api, id);
    expect(sent).toBe(0);
    expect(result.output).toEqual({ code: 'internal' });
    expect(await memory.calls(id)).toMatchObject([
      { toolId: 'get', ok: false, errorCode: 'internal', errorReason: 'internal' },
    ]);
  });

  it('leaves what a crash interrupts in the store: calls (in flight: ok null), stdout, stderr, output', async () => {
    const storage = createMemoryProcessStorage();
    const { api } = await setup({ storage });
    const { id } = await api.create({
      code: `cyrnel.log('before');
        cyrnel.error('warned');
        cyrnel.output({ step: 1 });
        await cyrnel.invoke('math', 'double', { n: 2 });
        cyrnel.output({ step: 2 });
        await cyrnel.invoke('math', 'hang', {});`,
      timeoutMs: null,
    });
    // The checkpoint comes within a second of the writes; the host is then "killed": abandoned
    // without a word, and a new one recovers the storage.
    await until(
      () => storage.results(id),
      (results) => results?.stdout === 'before\n' && results.output.step === 2,
    );
    const next = await setup({ storage, env: null });
    await next.manager.recover();
    expect(await next.api.get(id)).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      errorReason: 'process_interrupted',
    });
    expect(await next.api.calls(id)).toMatchObject([
      { toolId: 'double', ok: true },
      { toolId: 'hang', ok: null, errorCode: null, errorReason: null },
    ]);
    expect(await next.api.stdout(id)).toBe('before\n');
    expect(await next.api.stderr(id)).toBe('warned\n');
    expect(await next.api.output(id)).toEqual({ step: 2 });
  });

  it('opens calls for other egress paths through the manager', async () => {
    const storage = createMemoryProcessStorage();
    const { api, manager } = await setup({ storage });
    await expect(manager.openCall(12345, 'shop', 'get')).rejects.toMatchObject({
      reason: 'process_not_running',
    });
    const { id } = await api.create({ code: "await cyrnel.invoke('math', 'hang', {})", timeoutMs: null });
    await runningOf(api, id);
    const call = await manager.openCall(id, 'shop', 'get');
    expect(await storage.calls(id)).toContainEqual(expect.objectContaining({ toolId: 'get', ok: null }));
    call.end({ ok: false, errorReason: 'upstream_failed' });
    await until(
      () => storage.calls(id),
      (calls) => calls.some((stored) => stored.toolId === 'get' && stored.ok === false),
    );
    expect((await storage.calls(id)).find((stored) => stored.toolId === 'get')).toMatchObject({
      ok: false,
      errorCode: 'upstream_error',
      errorReason: 'upstream_failed',
    });
  });

  it('leaves them to another host that sweeps a silent one: the calls, the one in flight ok null, and the text', async () => {
    const shared = createMemoryProcessStorage();
    // Host a "crashes": from then on nothing of it reaches the storage (no heartbeat, no write).
    let crashed = false;
    const hostA = Object.fromEntries(
      Object.entries(shared).map(([name, method]) => [
        name,
        (...args: unknown[]) =>
          crashed
            ? Promise.reject(new Error('host a is gone'))
            : (method as (...a: unknown[]) => unknown)(...args),
      ]),
    ) as unknown as ProcessStorage;
    const a = await setup({ storage: hostA, host: { id: 'a', heartbeatMs: 50, leaseMs: 300 } });
    await a.manager.recover();
    const { id } = await a.api.create({
      code: `cyrnel.log('on a');
        cyrnel.output({ host: 'a' });
        await cyrnel.invoke('math', 'double', { n: 1 });
        await cyrnel.invoke('math', 'hang', {});`,
      timeoutMs: null,
    });
    await until(
      () => shared.results(id),
      (results) => results?.stdout === 'on a\n' && results.output.host === 'a',
    );
    await until(
      () => shared.calls(id),
      (calls) => calls.length === 2 && calls[0]?.ok === true,
    );
    crashed = true;
    const b = await setup({ storage: shared, env: null, host: { id: 'b', heartbeatMs: 50, leaseMs: 300 } });
    await b.manager.recover();
    const swept = await until(
      () => b.api.get(id),
      (record) => record.state === 'idle',
    );
    expect(swept).toMatchObject({ exitState: 'failed', errorReason: 'process_interrupted' });
    expect(await b.api.calls(id)).toMatchObject([
      { toolId: 'double', ok: true },
      { toolId: 'hang', ok: null },
    ]);
    expect(await b.api.stdout(id)).toBe('on a\n');
    expect(await b.api.output(id)).toEqual({ host: 'a' });
  });
});
