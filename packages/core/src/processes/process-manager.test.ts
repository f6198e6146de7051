import type { ProcessEvent } from '@cyrnel/sdk/api';
import { describe, expect, it, vi } from 'vitest';
import {
  createMemoryProcessStorage,
  DELETED_ERROR,
  INTERRUPTED_ERROR,
  KILLED_ERROR,
  MAX_TIMEOUT_MS,
  type ProcessStorage,
  SHUTDOWN_ERROR,
} from '../index';
import { newProcess } from '../testing/process-storage-contract';
import { createScriptEnvironment } from '../testing/script-environment';
import { HANGS, runningOf, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('createProcessManager', () => {
  it('runs a process to success and keeps its results and tool calls', async () => {
    const { api, environments } = await setup();
    const created = await api.create({
      code: `
      cyrnel.log('hello', 'world');
      cyrnel.error('careful');
      const { value } = await cyrnel.invoke('math', 'double', { n: 21 });
      cyrnel.output({ value });
      cyrnel.output({ done: true });
    `,
      ref: 'first',
      envConfig: { a: 1 },
    });
    expect(created).toMatchObject({
      state: 'queued',
      exitState: null,
      ref: 'first',
      timeoutMs: 30000,
      envConfig: { a: 1 },
    });
    const result = await api.wait(created.id);
    expect(result).toMatchObject({
      state: 'idle',
      exitState: 'success',
      error: null,
      output: { value: 42, done: true },
    });
    expect(result.stdout).toBe('hello world\n');
    expect(result.stderr).toBe('careful\n');
    expect(result.startedAt).not.toBeNull();
    expect(result.completedAt).not.toBeNull();
    expect(await api.get(created.id)).toEqual({
      ...created,
      state: 'idle',
      exitState: 'success',
      updatedAt: result.updatedAt,
      startedAt: result.startedAt,
      completedAt: result.completedAt,
    });
    expect(await api.output(created.id)).toEqual({ value: 42, done: true });
    expect(await api.stdout(created.id)).toBe('hello world\n');
    expect(await api.stderr(created.id)).toBe('careful\n');
    expect(await api.code(created.id)).toContain("cyrnel.log('hello'");
    const calls = await api.calls(created.id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ serviceId: 'math', toolId: 'double', ok: true, errorCode: null });
    expect(environments.held()).toBe(0);
  });

  it('records failed with the error and failed tool calls with their code', async () => {
    const { api } = await setup();
    const { id } = await api.create({
      code: `
      try { await cyrnel.invoke('nope', 'missing', {}); } catch (error) { cyrnel.log(error.status, error.code); }
      throw new Error('boom');
    `,
    });
    const result = await api.wait(id);
    expect(result).toMatchObject({ exitState: 'failed', error: 'boom', stdout: '404 not_found\n' });
    expect(await api.calls(id)).toMatchObject([
      {
        serviceId: 'nope',
        toolId: 'missing',
        ok: false,
        errorCode: 'not_found',
        errorReason: 'tool_not_found',
      },
    ]);
  });

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
    expect(await api.calls(id)).toMatchObject([{ toolId: 'hang', ok: false, errorCode: null }]);
    await api.kill(id);
    await api.wait(id);
    expect(await api.calls(id)).toMatchObject([
      { serviceId: 'math', toolId: 'hang', ok: false, errorCode: null },
    ]);
  });

  it('re-runs an idle process, requiring force once it has results', async () => {
    const { api } = await setup();
    const { id } = await api.create({
      code: 'cyrnel.output({ n: await cyrnel.invoke("math", "count", {}) })',
      autorun: false,
    });
    expect((await api.get(id)).state).toBe('idle');
    expect(await api.run(id)).toMatchObject({ state: 'queued' });
    expect((await api.wait(id)).output).toEqual({ n: 1 });
    await expect(api.run(id)).rejects.toMatchObject({ code: 'conflict' });
    await api.run(id, { force: true });
    const second = await api.wait(id);
    expect(second).toMatchObject({ exitState: 'success', output: { n: 2 } });
    expect(await api.calls(id)).toHaveLength(1);
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

  it('validates every create field and names it', async () => {
    const { api } = await setup({ limits: { maxCodeBytes: 100 } });
    const cases: [unknown, string][] = [
      [{}, 'code'],
      [{ code: '  ' }, 'code'],
      [{ code: 'x', ref: 5 }, 'ref'],
      [{ code: 'x', ref: 'r'.repeat(201) }, 'ref'],
      [{ code: 'x', timeoutMs: 0 }, 'timeoutMs'],
      [{ code: 'x', timeoutMs: 1.5 }, 'timeoutMs'],
      [{ code: 'x', timeoutMs: '10' }, 'timeoutMs'],
      [{ code: 'x', timeoutMs: 300_001 }, 'timeoutMs'],
      [{ code: 'x', timeoutMs: MAX_TIMEOUT_MS + 1 }, 'timeoutMs'],
      [{ code: 'x', timeoutMs: Number.MAX_SAFE_INTEGER }, 'timeoutMs'],
      [{ code: 'x', envConfig: [] }, 'envConfig'],
      [{ code: 'x', autorun: 'yes' }, 'autorun'],
    ];
    for (const [request, field] of cases) {
      await expect(api.create(request as never)).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining(field),
      });
    }
    await expect(api.create({ code: 'é'.repeat(51) })).rejects.toMatchObject({ code: 'payload_too_large' });
    expect((await api.create({ code: 'x', timeoutMs: null, autorun: false })).timeoutMs).toBe(30_000);
    const longest = await api.create({ code: 'x', timeoutMs: 300_000, autorun: false });
    expect(longest.timeoutMs).toBe(300_000);
  });

  it('caps envConfig at maxEnvConfigBytes of JSON (413 naming the field) and lists processes without it', async () => {
    const { api } = await setup({ limits: { maxEnvConfigBytes: 64 } });
    const fits = { k: 'v'.repeat(54) }; // {"k":"…"} is exactly 64 bytes
    const created = await api.create({ code: 'x', autorun: false, envConfig: fits });
    await expect(
      api.create({ code: 'x', autorun: false, envConfig: { k: 'é'.repeat(29) } }),
    ).rejects.toMatchObject({
      code: 'payload_too_large',
      status: 413,
      message: 'envConfig exceeds 64 bytes of JSON',
      details: [{ path: 'envConfig', message: expect.stringContaining('64 bytes') }],
    });
    expect((await api.get(created.id)).envConfig).toEqual(fits);
    const [listed] = (await api.list({})).items;
    expect(listed).toMatchObject({ id: created.id });
    expect(listed).not.toHaveProperty('envConfig');
  });

  it('caps timeoutMs at maxTimeoutMs, naming the limit, and keeps the default under it', async () => {
    const { api } = await setup({ limits: { maxTimeoutMs: 1000 } });
    await expect(api.create({ code: 'x', timeoutMs: 1001 })).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: expect.stringContaining('at most 1000'),
      details: [{ path: 'timeoutMs' }],
    });
    expect((await api.create({ code: 'x', timeoutMs: 1000, autorun: false })).timeoutMs).toBe(1000);
    expect((await api.create({ code: 'x', autorun: false })).timeoutMs).toBe(1000);
    const widest = await setup({ limits: { maxTimeoutMs: 2 ** 40 } });
    const longest = await widest.api.create({ code: 'x', timeoutMs: MAX_TIMEOUT_MS, autorun: false });
    expect(longest.timeoutMs).toBe(MAX_TIMEOUT_MS);
    await expect(widest.api.create({ code: 'x', timeoutMs: MAX_TIMEOUT_MS + 1 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('refuses runs without an active environment and beyond the live limit', async () => {
    const none = await setup({ env: null });
    await expect(none.api.create({ code: 'x' })).rejects.toMatchObject({ code: 'unavailable', status: 503 });
    expect((await none.api.create({ code: 'x', autorun: false })).state).toBe('idle');
    const { api } = await setup({ limits: { maxLiveProcesses: 2 } });
    await api.create({ code: HANGS });
    await api.create({ code: HANGS });
    await expect(api.create({ code: 'x' })).rejects.toMatchObject({
      code: 'too_many_processes',
      status: 429,
    });
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

  it('streams events live and replays them after the end', async () => {
    const { api } = await setup();
    const { id } = await api.create({
      code: 'cyrnel.log("a"); await cyrnel.sleep(5); cyrnel.output({ k: 1 }); cyrnel.error("b")',
    });
    const live: ProcessEvent[] = [];
    const done = new Promise<void>((resolve) => {
      api.subscribe(id, (event) => {
        live.push(event);
        if (event.type === 'exit') resolve();
      });
    });
    await done;
    expect(live.map((e) => e.type)).toEqual([
      'state',
      'state',
      'stdout',
      'output',
      'stderr',
      'state',
      'exit',
    ]);
    await api.wait(id);
    const replay: ProcessEvent[] = [];
    await api.subscribe(id, (event) => replay.push(event));
    expect(replay).toEqual([
      { type: 'state', data: { state: 'idle', exitState: 'success' } },
      { type: 'stdout', data: { text: 'a\n' } },
      { type: 'stderr', data: { text: 'b\n' } },
      { type: 'output', data: { patch: { k: 1 } } },
      { type: 'exit', data: { exitState: 'success', error: null, errorReason: null } },
    ]);
    await expect(api.subscribe(999, () => {})).rejects.toMatchObject({ code: 'not_found' });
  });

  it('replays consecutive chunks of a stream as one event', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: `cyrnel.log('a'); cyrnel.log('b'); ${HANGS}`, timeoutMs: null });
    const seen = new Promise<void>((resolve) => {
      const texts: string[] = [];
      api.subscribe(id, (event) => {
        if (event.type === 'stdout') texts.push(event.data.text);
        if (texts.join('') === 'a\nb\n') resolve();
      });
    });
    await seen;
    const replay: ProcessEvent[] = [];
    await api.subscribe(id, (event) => replay.push(event));
    expect(replay.filter((event) => event.type === 'stdout')).toEqual([
      { type: 'stdout', data: { text: 'a\nb\n' } },
    ]);
  });

  it('replays consecutive output patches as their merge, live subscribers having seen each', async () => {
    const { api } = await setup();
    const code = `for (let i = 0; i < 1000; i++) await cyrnel.output({ i }); cyrnel.output({ done: true }); ${HANGS}`;
    const { id } = await api.create({ code, timeoutMs: null });
    const live: ProcessEvent[] = [];
    await new Promise<void>((resolve) => {
      api.subscribe(id, (event) => {
        live.push(event);
        if (event.type === 'output' && event.data.patch.done === true) resolve();
      });
    });
    expect(live.filter((event) => event.type === 'output')).toHaveLength(1001);
    const replay: ProcessEvent[] = [];
    await api.subscribe(id, (event) => replay.push(event));
    expect(replay.filter((event) => event.type === 'output')).toEqual([
      { type: 'output', data: { patch: { i: 999, done: true } } },
    ]);
    await api.kill(id);
  });

  it('lets subscribers of a never-run process follow its first run', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: 'cyrnel.log("ran")', autorun: false });
    const events: ProcessEvent[] = [];
    const exited = new Promise<void>((resolve) => {
      api.subscribe(id, (event) => {
        events.push(event);
        if (event.type === 'exit') resolve();
      });
    });
    await api.run(id);
    await exited;
    expect(events[0]).toEqual({ type: 'state', data: { state: 'idle', exitState: null } });
    expect(events.at(-1)).toEqual({
      type: 'exit',
      data: { exitState: 'success', error: null, errorReason: null },
    });
    expect(events).toContainEqual({ type: 'stdout', data: { text: 'ran\n' } });
  });

  it('gives up waiting after timeoutMs or when the signal aborts', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: HANGS, timeoutMs: null });
    await expect(api.wait(id, { timeoutMs: 10 })).rejects.toMatchObject({
      code: 'timeout',
      details: { processId: id },
    });
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(api.wait(id, { signal: controller.signal })).rejects.toThrow('gone');
    await expect(api.wait(12345)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('records processes a stopped host left unfinished as failed', async () => {
    const storage = createMemoryProcessStorage();
    const at = new Date().toISOString();
    const id = await storage.insert({
      code: 'x',
      ref: null,
      keyId: null,
      state: 'queued',
      timeoutMs: null,
      envConfig: {},
      createdAt: at,
    });
    await storage.update(id, { state: 'running', startedAt: at, updatedAt: at });
    const { manager, api } = await setup({ storage });
    await manager.recover();
    expect(await api.get(id)).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      error: INTERRUPTED_ERROR,
      errorReason: 'process_interrupted',
    });
  });

  it('gives running processes a grace period on close, then kills and records them', async () => {
    const { manager, api } = await setup();
    const quick = await api.create({ code: 'await cyrnel.sleep(5); cyrnel.output({ ok: true })' });
    const stuck = await api.create({ code: HANGS, timeoutMs: null });
    await manager.close({ graceMs: 1000 });
    expect(await api.wait(quick.id)).toMatchObject({ exitState: 'success', output: { ok: true } });
    expect(await api.get(stuck.id)).toMatchObject({
      exitState: 'failed',
      error: SHUTDOWN_ERROR,
      errorReason: 'process_interrupted',
    });
    await expect(api.create({ code: 'x' })).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('records what the shutdown interrupts, running or queued, as failed', async () => {
    const env = createScriptEnvironment({ poolSize: 1 });
    const { manager, api, environments } = await setup({ env });
    const running = await api.create({ code: HANGS, timeoutMs: null });
    const queued = await api.create({ code: 'cyrnel.log("never")' });
    await runningOf(api, running.id);
    await manager.close({ graceMs: 0 });
    for (const { id } of [running, queued]) {
      expect(await api.get(id)).toMatchObject({
        state: 'idle',
        exitState: 'failed',
        error: SHUTDOWN_ERROR,
        errorReason: 'process_interrupted',
      });
    }
    expect(env.started).toEqual([running.id]);
    expect(environments.held()).toBe(0);
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
    // Stored as it was inserted: a run this short has its start written with its end (issue 21).
    expect((await memory.get(id))?.state).not.toBe('idle');
    const listing = api.list({ state: 'running' });
    open();
    const { items } = await listing;
    expect(items.filter((item) => item.state !== 'running')).toEqual([]);
    expect((await api.list({ state: 'idle' })).items).toMatchObject([
      { id, state: 'idle', exitState: 'success' },
    ]);
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

  it('runs two hundred concurrent processes through a pool of two without losing any', async () => {
    const env = createScriptEnvironment({ poolSize: 2 });
    const { api, environments } = await setup({ env });
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        api.create({
          code: `cyrnel.log('p${i}'); cyrnel.output({ i: ${i}, double: (await cyrnel.invoke('math', 'double', { n: ${i} })).value })`,
        }),
      ),
    );
    const results = await Promise.all(created.map(({ id }) => api.wait(id)));
    results.forEach((result, i) => {
      expect(result).toMatchObject({ exitState: 'success', stdout: `p${i}\n`, output: { i, double: i * 2 } });
    });
    expect(new Set(env.started).size).toBe(200);
    expect(environments.held()).toBe(0);
    expect((await api.list({ exitState: 'success', limit: 100 })).hasMore).toBe(true);
  });

  it('after being silent longer than its lease, stops the runs another host failed meanwhile and sweeps no one that time (issue 22)', async () => {
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
