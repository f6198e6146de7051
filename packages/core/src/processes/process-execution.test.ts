import { ADMIN_TENANT, type ExecutionInput } from '@cyrnel/sdk';
import type { ProcessEvent } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { createMemoryProcessStorage, MAX_TIMEOUT_MS } from '../index';
import { createScriptEnvironment, type ScriptEnvironment } from '../testing/script-environment';
import { HANGS, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('the host deadline', () => {
  it('lets a run with a timeout beyond what a Node timer holds run to its end', async () => {
    // An operator default above 2^31-1 ms once made Node fire the deadline after 1 ms.
    const { api } = await setup({ limits: { defaultTimeoutMs: 2 ** 40, maxTimeoutMs: 2 ** 40 } });
    const { id } = await api.create({ code: 'await cyrnel.sleep(20); cyrnel.output({ ok: true })' });
    expect(await api.wait(id)).toMatchObject({ exitState: 'success', output: { ok: true } });
  });

  it('waits out the queue and the run of a process with the largest timeout', async () => {
    const { api } = await setup({
      env: createScriptEnvironment({ poolSize: 1 }),
      limits: { maxTimeoutMs: MAX_TIMEOUT_MS },
    });
    const first = await api.create({ code: 'await cyrnel.sleep(20)', timeoutMs: MAX_TIMEOUT_MS });
    const second = await api.create({
      code: 'await cyrnel.sleep(20); cyrnel.output({ ok: true })',
      timeoutMs: MAX_TIMEOUT_MS,
    });
    // Both bounds exceed a timer's range (timeout plus the queue allowance, timeout plus margin).
    expect(await api.wait(second.id, { marginMs: 1000 })).toMatchObject({
      exitState: 'success',
      output: { ok: true },
    });
    expect(await api.wait(first.id)).toMatchObject({ exitState: 'success' });
  });

  it('ends a run the environment keeps queued and never starts', async () => {
    const env = createScriptEnvironment({ stall: true });
    const { api, environments } = await setup({ env, limits: { queueStallMs: 20 } });
    const { id } = await api.create({ code: 'cyrnel.log("never")', timeoutMs: 30 });
    expect((await api.get(id)).state).toBe('queued');
    const result = await api.wait(id);
    expect(result).toMatchObject({
      state: 'idle',
      exitState: 'timeout',
      errorReason: 'process_timeout',
      startedAt: null,
    });
    expect(result.error).toMatch(/queued: the environment ran nothing for 20 ms/);
    expect(env.killed).toEqual([id]);
    expect(environments.held()).toBe(0);
  });

  it('never ends a run that waits behind busy slots, however long it stays queued', async () => {
    const env = createScriptEnvironment({ poolSize: 1 });
    const { api } = await setup({ env, limits: { queueStallMs: 20 } });
    const slow = await api.create({ code: 'await cyrnel.sleep(200)', timeoutMs: null });
    const queued = await api.create({ code: 'cyrnel.output({ ran: true })', timeoutMs: 30 });
    expect(await api.wait(queued.id)).toMatchObject({ exitState: 'success', output: { ran: true } });
    expect(await api.wait(slow.id)).toMatchObject({ exitState: 'success' });
    expect(env.started).toEqual([slow.id, queued.id]);
  });
});

describe('the deadline counts from running', () => {
  it('does not count the time an environment with an asynchronous queue keeps a run queued', async () => {
    // Reports `queued` only after an await: the host saw no report at dispatch.
    const env = createScriptEnvironment({ poolSize: 1, lateQueue: true });
    const { api } = await setup({ env });
    const slow = await api.create({ code: 'await cyrnel.sleep(300)', timeoutMs: null });
    const queued = await api.create({ code: 'cyrnel.output({ ran: true })', timeoutMs: 100 });
    expect(await api.wait(queued.id)).toMatchObject({ exitState: 'success', output: { ran: true } });
    expect(await api.wait(slow.id)).toMatchObject({ exitState: 'success' });
    expect(env.started).toEqual([slow.id, queued.id]);
  });

  it('still ends a hanging run at the deadline counted from its running report', async () => {
    const { api } = await setup({ env: createScriptEnvironment({ hang: true }) });
    const { id } = await api.create({ code: 'cyrnel.log("x")', timeoutMs: 30 });
    expect(await api.wait(id)).toMatchObject({ exitState: 'timeout', error: 'timed out after 30 ms' });
  });
});

describe('timeoutMs: null', () => {
  /** A hanging environment (ignores its deadline and kills) that notes the deadline it was given. */
  function hangingEnvironment(): { env: ScriptEnvironment; deadlines: (number | null)[] } {
    const env = createScriptEnvironment({ hang: true });
    const deadlines: (number | null)[] = [];
    const execute = env.execute.bind(env);
    return {
      env: Object.assign(env, {
        execute: (input: ExecutionInput) => {
          deadlines.push(input.options.timeoutMs);
          return execute(input);
        },
      }),
      deadlines,
    };
  }

  it('means the default deadline, which an environment ignoring it cannot outlive', async () => {
    const { env, deadlines } = hangingEnvironment();
    const { api, environments } = await setup({ env, limits: { defaultTimeoutMs: 30, maxTimeoutMs: 1000 } });
    const created = await api.create({ code: HANGS, timeoutMs: null });
    expect(created.timeoutMs).toBe(30);
    const result = await api.wait(created.id);
    expect(result).toMatchObject({ state: 'idle', exitState: 'timeout', error: 'timed out after 30 ms' });
    expect(deadlines).toEqual([30]);
    expect(environments.held()).toBe(0);
  });

  it('re-runs a record stored without a deadline (an older host) with the default, and never beyond maxTimeoutMs', async () => {
    const storage = createMemoryProcessStorage();
    const stored = (timeoutMs: number | null) =>
      storage.insert({
        ref: null,
        keyId: null,
        code: HANGS,
        state: 'idle',
        timeoutMs,
        envConfig: {},
        createdAt: new Date().toISOString(),
      });
    const unbounded = await stored(null);
    const tooLong = await stored(10_000);
    const { env, deadlines } = hangingEnvironment();
    const { api } = await setup({ env, storage, limits: { defaultTimeoutMs: 30, maxTimeoutMs: 40 } });
    await api.run(unbounded);
    expect(await api.wait(unbounded)).toMatchObject({ exitState: 'timeout', error: 'timed out after 30 ms' });
    await api.run(tooLong);
    expect(await api.wait(tooLong)).toMatchObject({ exitState: 'timeout', error: 'timed out after 40 ms' });
    expect(deadlines).toEqual([30, 40]);
  });
});

describe('lifecycle writes', () => {
  /** A memory storage that counts the statements a run costs. */
  const counting = () => {
    const inner = createMemoryProcessStorage();
    const writes: string[] = [];
    const storage: typeof inner = {
      ...inner,
      insert: (...args) => {
        writes.push('insert');
        return inner.insert(...args);
      },
      update: (id, change) => {
        writes.push(`update:${change.state ?? '-'}`);
        return inner.update(id, change);
      },
      finish: (...args) => {
        writes.push('finish');
        return inner.finish(...args);
      },
    };
    return { storage, writes };
  };

  it('writes a short run twice: its insert, and its start with its end', async () => {
    const { storage, writes } = counting();
    const { api } = await setup({ storage });
    const { id } = await api.create({ code: 'cyrnel.output({ ok: true })' });
    const result = await api.wait(id);
    expect(result).toMatchObject({ exitState: 'success', output: { ok: true } });
    expect(result.startedAt).not.toBeNull();
    // The answer came from memory; the row has everything once the write is done.
    await api.list({});
    expect(writes).toEqual(['insert', 'finish']);
    expect(await storage.get(id)).toMatchObject({
      state: 'idle',
      exitState: 'success',
      startedAt: result.startedAt,
    });
  });

  it('writes the start of a longer run on its own, and before a list reads the store', async () => {
    const { storage, writes } = counting();
    const { api } = await setup({ storage });
    const { id } = await api.create({ code: 'await cyrnel.sleep(300)' });
    while ((await api.get(id)).state !== 'running') await new Promise((resolve) => setTimeout(resolve, 2));
    // A list right away sees it running although the held-back write was not due yet.
    expect((await api.list({ state: 'running' })).items.map((item) => item.id)).toEqual([id]);
    expect(writes).toEqual(['insert', 'update:running']);
    await api.wait(id);
    await api.list({});
    expect(writes).toEqual(['insert', 'update:running', 'finish']);
  });
});

describe('runs in the environment', () => {
  it('enforces timeoutMs even when the environment never returns', async () => {
    const env = createScriptEnvironment({ hang: true });
    const { api, environments } = await setup({ env });
    const { id } = await api.create({ code: 'anything', timeoutMs: 30 });
    const result = await api.wait(id);
    expect(result).toMatchObject({
      state: 'idle',
      exitState: 'timeout',
      error: 'timed out after 30 ms',
      errorReason: 'process_timeout',
    });
    expect(env.killed).toEqual([id]);
    expect(environments.held()).toBe(0);
  });

  it('records timeout when the code runs past its deadline', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: `cyrnel.log('before'); ${HANGS}`, timeoutMs: 30 });
    const events: ProcessEvent[] = [];
    await api.subscribe(id, (event) => events.push(event));
    const result = await api.wait(id);
    expect(result).toMatchObject({ exitState: 'timeout', stdout: 'before\n' });
    expect(events.filter((e) => e.type === 'state').map((e) => e.data.state)).toEqual([
      'queued',
      'running',
      'terminating',
      'idle',
    ]);
  });

  it('reassembles split UTF-8, caps streams with a marker and caps the output', async () => {
    const { api } = await setup({ limits: { maxStderrBytes: 8, maxOutputBytes: 64 } });
    const { id } = await api.create({
      code: `
      cyrnel.bytes([0x68, 0xc3]); cyrnel.bytes([0xa9, 0xe2, 0x82]); cyrnel.bytes([0xac]);
      cyrnel.error('0123456789abcdef');
      cyrnel.error('dropped');
      cyrnel.output({ small: 1 });
      try { cyrnel.output({ big: 'x'.repeat(100) }); } catch (error) { cyrnel.log('', error.code); }
    `,
    });
    const result = await api.wait(id);
    expect(result.stdout).toBe('hé€ payload_too_large\n');
    expect(result.stderr).toBe('01234567\n[cyrnel: stderr truncated at 8 bytes]\n');
    expect(result.output).toEqual({ small: 1 });
  });

  it('refuses output nested deeper than MAX_JSON_DEPTH to the environment, merging nothing of it', async () => {
    const { api } = await setup();
    const { id } = await api.create({
      code: `
      const nest = (depth) => { let v = {}; for (let i = 1; i < depth; i++) v = { v }; return v; };
      cyrnel.output({ fits: nest(63) });
      for (const depth of [64, 100_000]) {
        try { cyrnel.output({ ok: 1, deep: nest(depth) }); } catch (error) { cyrnel.log(depth, error.code, error.message); }
      }
    `,
    });
    const result = await api.wait(id);
    expect(result.exitState).toBe('success');
    const refusal =
      'invalid_request output is nested too deeply: it allows at most 64 levels of arrays and objects';
    expect(result.stdout).toBe(`64 ${refusal}\n100000 ${refusal}\n`);
    expect(Object.keys(result.output ?? {})).toEqual(['fits']);
  });
});

describe('the tenant and failure reasons of executions', () => {
  it('hands the environment the key of the process as its tenant, ADMIN_TENANT without one', async () => {
    const env = createScriptEnvironment();
    const { api } = await setup({ env });
    const keyed = await api.create({ code: 'cyrnel.output({ ok: 1 })' }, { keyId: '0123456789abcdef' });
    const admin = await api.create({ code: 'cyrnel.output({ ok: 1 })' });
    await api.wait(keyed.id);
    await api.wait(admin.id);
    expect(env.tenants.get(keyed.id)).toBe('0123456789abcdef');
    expect(env.tenants.get(admin.id)).toBe(ADMIN_TENANT);
  });

  it('records the reason an environment gives with setError as the errorReason of a failed run', async () => {
    const { api } = await setup({ env: createScriptEnvironment() });
    const crashed = await api.create({ code: "cyrnel.fail('the sandbox crashed', 'sandbox_collateral')" });
    expect(await api.wait(crashed.id)).toMatchObject({
      exitState: 'failed',
      error: 'the sandbox crashed',
      errorReason: 'sandbox_collateral',
    });
    // A failure of the code itself has no reason; a reason that is not a stable one is dropped.
    const thrown = await api.create({ code: "throw new Error('bad code')" });
    expect(await api.wait(thrown.id)).toMatchObject({ exitState: 'failed', errorReason: null });
    const unknown = await api.create({ code: "cyrnel.fail('odd', 'no_such_reason')" });
    expect(await api.wait(unknown.id)).toMatchObject({
      exitState: 'failed',
      error: 'odd',
      errorReason: null,
    });
  });
});
