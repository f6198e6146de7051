import { describe, expect, it } from 'vitest';
import { MAX_TIMEOUT_MS } from '../index';
import { createScriptEnvironment } from '../testing/script-environment';
import { HANGS, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('create and run', () => {
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
      metrics: result.metrics,
    });
    expect(result.metrics).toMatchObject({ toolCalls: 1, toolResultBytes: 12 });
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

  it('records a call of a name longer than any id cut short, and fails it as an unknown name', async () => {
    const { api } = await setup();
    // A megabyte name, called twice: what a hostile program would loop on to fill the store.
    const { id } = await api.create({
      code: `
      const huge = 'x'.repeat(1_000_000);
      for (const [service, tool] of [[huge, 'get'], ['math', huge]]) {
        try { await cyrnel.invoke(service, tool, {}); } catch (error) { cyrnel.log(error.code, error.message.length < 400); }
      }
    `,
    });
    const result = await api.wait(id);
    expect(result).toMatchObject({ exitState: 'success', stdout: 'not_found true\nnot_found true\n' });
    const shown = `${'x'.repeat(128)}…`;
    expect(await api.calls(id)).toMatchObject([
      { serviceId: shown, toolId: 'get', ok: false, errorReason: 'tool_not_found' },
      { serviceId: 'math', toolId: shown, ok: false, errorReason: 'tool_not_found' },
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
});
