import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type Json, parseSse, useServer } from './helpers';

const expectError = (response: { status: number; body: Json }, status: number, code: string) => {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
};

const SLOW = 'await new Promise((resolve) => setTimeout(resolve, 20000)); cyrnel.output({ late: true });';

/** Pids of the sandbox processes the environment forked from this test process (Linux /proc). */
async function sandboxChildren(): Promise<number[]> {
  const listed = await readFile(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
  const pids: number[] = [];
  for (const pid of listed.split(/\s+/).filter(Boolean).map(Number)) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('sandbox-child')) pids.push(pid);
  }
  return pids;
}

describe('process routes', () => {
  const { api, url } = useServer({ heartbeatMs: 50 });

  it('creates a process (201) and reads it back when idle', async () => {
    const created = await api('POST', '/processes', {
      code: 'console.log("hi"); cyrnel.output({ a: 1 });',
      ref: 'r1',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(Number), ref: 'r1', timeoutMs: 30000 });
    expect(created.body).not.toHaveProperty('code');
    const id = created.body.id as number;
    const events = parseSse(await (await fetch(`${url()}/processes/${id}/events`)).text());
    expect(events.at(-1)?.event).toBe('exit');
    const record = await api('GET', `/processes/${id}`);
    expect(record.body).toMatchObject({
      id,
      state: 'idle',
      exitState: 'success',
      startedAt: expect.any(String),
      completedAt: expect.any(String),
    });
    const code = await api('GET', `/processes/${id}/code`);
    expect(code.headers.get('content-type')).toContain('text/plain');
    expect(code.text).toBe('console.log("hi"); cyrnel.output({ a: 1 });');
    const stdout = await api('GET', `/processes/${id}/stdout`);
    expect(stdout.headers.get('content-type')).toContain('text/plain');
    expect(stdout.text).toBe('hi\n');
    expect((await api('GET', `/processes/${id}/stderr`)).text).toBe('');
    expect((await api('GET', `/processes/${id}/output`)).body).toEqual({ a: 1 });
    expect((await api('GET', `/processes/${id}/calls`)).body).toEqual({ items: [] });
  });

  it('answers wait:true with the result, including failures', async () => {
    const failed = await api('POST', '/processes', { code: 'throw new Error("boom")', wait: true });
    expect(failed.status).toBe(201);
    expect(failed.body).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      error: expect.stringContaining('boom'),
      output: {},
      stdout: '',
      stderr: expect.any(String),
    });
    const timedOut = await api('POST', '/processes', { code: 'while (true) {}', timeoutMs: 300, wait: true });
    expect(timedOut.body).toMatchObject({ state: 'idle', exitState: 'timeout' });
  });

  it('validates create bodies strictly', async () => {
    expectError(await api('POST', '/processes', {}), 400, 'invalid_request');
    expectError(await api('POST', '/processes', { code: 'x', unknown: true }), 400, 'invalid_request');
    expectError(await api('POST', '/processes', { code: 'x', timeoutMs: -1 }), 400, 'invalid_request');
    expectError(await api('POST', '/processes', { code: 'x', autorun: 'no' }), 400, 'invalid_request');
    expectError(await api('POST', '/processes', { code: 'x', envConfig: [] }), 400, 'invalid_request');
    // JSON that is no object at all, found by the API fuzz: a 400, never a 500.
    for (const body of ['null', '[]', '7', '"code"'])
      expectError(await api('POST', '/processes', body), 400, 'invalid_request');
    for (const connections of [[], { 'not an id': 'x' }, { gh: 'Bad Name' }, { gh: 7 }])
      expectError(await api('POST', '/processes', { code: 'x', connections }), 400, 'invalid_request');
    expectError(
      await api('POST', '/processes', { code: 'x', wait: true, autorun: false }),
      400,
      'invalid_request',
    );
    expectError(await api('POST', '/processes', { code: 'x'.repeat(200 * 1024) }), 413, 'payload_too_large');
  });

  it('kills a running process, refuses outputs while it runs, and streams its events with heartbeats', async () => {
    const created = await api('POST', '/processes', { code: `console.log('started'); ${SLOW}` });
    const id = created.body.id as number;
    const stream = await fetch(`${url()}/processes/${id}/events`);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('started') || !text.includes(': heartbeat')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('event: stdout');
    expect(text).toContain(': heartbeat');
    expectError(await api('GET', `/processes/${id}/stdout`), 409, 'conflict');
    expectError(await api('GET', `/processes/${id}/stderr`), 409, 'conflict');
    expect((await api('GET', `/processes/${id}/code`)).text).toContain("console.log('started')");
    expectError(await api('GET', `/processes/${id}/output`), 409, 'conflict');
    expectError(await api('DELETE', `/processes/${id}`), 409, 'conflict');
    const killed = await api('POST', `/processes/${id}/signals/kill`);
    expect(killed.status).toBe(200);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(parseSse(text).at(-1)).toEqual({
      event: 'exit',
      data: { exitState: 'canceled', error: expect.any(String), errorReason: 'process_killed' },
    });
    expect((await api('GET', `/processes/${id}`)).body).toMatchObject({
      state: 'idle',
      exitState: 'canceled',
    });
    expectError(await api('POST', `/processes/${id}/signals/kill`), 409, 'conflict');
  });

  it('creates idle processes with autorun:false and runs them on signal, force needed for re-runs', async () => {
    const created = await api('POST', '/processes', {
      code: 'cyrnel.output({ n: 1 })',
      autorun: false,
      ref: 'later',
    });
    expect(created.body).toMatchObject({ state: 'idle', exitState: null });
    const id = created.body.id as number;
    expect((await api('POST', `/processes/${id}/signals/run`)).status).toBe(200);
    const events = parseSse(await (await fetch(`${url()}/processes/${id}/events`)).text());
    expect(events.at(-1)).toMatchObject({ event: 'exit', data: { exitState: 'success' } });
    expectError(await api('POST', `/processes/${id}/signals/run`, {}), 409, 'conflict');
    expectError(await api('POST', `/processes/${id}/signals/run`, { force: 'yes' }), 400, 'invalid_request');
    expect((await api('POST', `/processes/${id}/signals/run`, { force: true })).status).toBe(200);
  });

  it('lists newest first with filters and pagination', async () => {
    const all = await api('GET', '/processes');
    const ids = all.body.items.map((p: { id: number }) => p.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    expect((await api('GET', '/processes?ref=r1')).body.items).toHaveLength(1);
    expect((await api('GET', '/processes?exitState=canceled')).body.items.length).toBeGreaterThanOrEqual(1);
    const page = await api('GET', '/processes?limit=2');
    expect(page.body).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    const next = await api('GET', `/processes?limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    expect(next.body.items[0].id).toBeLessThan(page.body.items[1].id);
    expectError(await api('GET', '/processes?state=sleeping'), 400, 'invalid_request');
    expectError(await api('GET', '/processes?exitState=ok'), 400, 'invalid_request');
    expectError(await api('GET', '/processes?limit=-5'), 400, 'invalid_request');
    expectError(await api('GET', '/processes?cursor=%%%'), 400, 'invalid_request');
  });

  it('answers 404 on every route of an unknown process', async () => {
    for (const [method, path] of [
      ['GET', '/processes/999999'],
      ['GET', '/processes/999999/code'],
      ['GET', '/processes/999999/stdout'],
      ['GET', '/processes/999999/stderr'],
      ['GET', '/processes/999999/output'],
      ['GET', '/processes/999999/calls'],
      ['GET', '/processes/999999/events'],
      ['POST', '/processes/999999/signals/run'],
      ['POST', '/processes/999999/signals/kill'],
      ['DELETE', '/processes/999999'],
    ] as const) {
      const response = await api(method, path);
      expect({ path: `${method} ${path}`, status: response.status, code: response.body.code }).toEqual({
        path: `${method} ${path}`,
        status: 404,
        code: 'not_found',
      });
    }
  });

  it('answers kill with 200 again while the process is terminating, then 409 once it is idle', async () => {
    const created = await api('POST', '/processes', { code: SLOW });
    const id = created.body.id as number;
    for (let state = ''; state !== 'running'; await new Promise((resolve) => setTimeout(resolve, 20))) {
      state = (await api('GET', `/processes/${id}`)).body.state;
    }
    // A sandbox that does not answer the kill (stopped here) keeps the process terminating
    // until the environment's backstop replaces the sandbox.
    const sandboxes = await sandboxChildren();
    expect(sandboxes.length).toBeGreaterThan(0);
    for (const pid of sandboxes) process.kill(pid, 'SIGSTOP');
    try {
      const first = await api('POST', `/processes/${id}/signals/kill`);
      expect(first).toMatchObject({ status: 200, body: { id, state: 'terminating' } });
      const second = await api('POST', `/processes/${id}/signals/kill`);
      expect(second).toMatchObject({ status: 200, body: { id, state: 'terminating' } });
    } finally {
      for (const pid of sandboxes) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // Already replaced by the environment's backstop.
        }
      }
    }
    const events = parseSse(await (await fetch(`${url()}/processes/${id}/events`)).text());
    expect(events.at(-1)).toMatchObject({ event: 'exit', data: { exitState: 'canceled' } });
    expectError(await api('POST', `/processes/${id}/signals/kill`), 409, 'conflict');
    expect((await api('POST', '/processes', { code: '1', wait: true })).body).toMatchObject({
      exitState: 'success',
    });
  });

  it('deletes idle processes and answers 404/400 for unknown or bad ids', async () => {
    const created = await api('POST', '/processes', { code: '1', wait: true });
    const id = created.body.id as number;
    expect((await api('DELETE', `/processes/${id}`)).status).toBe(204);
    expectError(await api('GET', `/processes/${id}`), 404, 'not_found');
    expectError(await api('GET', '/processes/999999/events'), 404, 'not_found');
    expectError(await api('GET', '/processes/abc'), 400, 'invalid_request');
    expectError(await api('GET', '/processes/0/code'), 400, 'invalid_request');
  });
});

describe('process routes under limits and without an environment', () => {
  const { api, url } = useServer({ maxLiveProcesses: 1 });

  it('answers 429 beyond the live-process limit', async () => {
    const first = await api('POST', '/processes', { code: SLOW });
    expect(first.status).toBe(201);
    expectError(await api('POST', '/processes', { code: '1' }), 429, 'too_many_processes');
    await api('POST', `/processes/${first.body.id}/signals/kill`);
    await fetch(`${url()}/processes/${first.body.id}/events`).then((response) => response.text());
    expect((await api('POST', '/processes', { code: '1', wait: true })).body).toMatchObject({
      exitState: 'success',
    });
  });

  it('answers 503 for running processes and docs while no environment is active', async () => {
    expect((await api('POST', '/modules/typescript-ivm/enabled', { enabled: false })).status).toBe(200);
    expectError(await api('GET', '/environment/docs'), 503, 'unavailable');
    expectError(await api('GET', '/environment/types'), 503, 'unavailable');
    expectError(await api('POST', '/processes', { code: '1' }), 503, 'unavailable');
    expect((await api('POST', '/modules/typescript-ivm/enabled', { enabled: true })).body).toMatchObject({
      status: 'active',
    });
    expect((await api('POST', '/processes', { code: '1', wait: true })).body).toMatchObject({
      exitState: 'success',
    });
  });
});

describe('process routes when clients leave', () => {
  const { api, url } = useServer({ heartbeatMs: 20, maxEventQueueBytes: 64 * 1024 });

  it('keeps serving after an events client and a wait:true client disconnect', async () => {
    const created = await api('POST', '/processes', { code: `console.log('tick'); ${SLOW}`, ref: 'left' });
    const id = created.body.id as number;
    const events = new AbortController();
    const stream = await fetch(`${url()}/processes/${id}/events`, { signal: events.signal });
    const reader = stream.body?.getReader();
    await reader?.read();
    events.abort();
    const waiting = new AbortController();
    const waited = fetch(`${url()}/processes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: SLOW, wait: true, ref: 'left' }),
      signal: waiting.signal,
    }).catch((error: unknown) => error);
    for (let count = 0; count < 2; await new Promise((resolve) => setTimeout(resolve, 50))) {
      count = (await api('GET', '/processes?ref=left')).body.items.length;
    }
    waiting.abort();
    expect(await waited).toMatchObject({ name: 'AbortError' });
    // Heartbeats to the departed client must not disturb the server.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await api('GET', '/health')).body).toEqual({ status: 'ok' });
    for (const item of (await api('GET', '/processes?ref=left')).body.items) {
      expect((await api('POST', `/processes/${item.id}/signals/kill`)).status).toBe(200);
    }
    const record = await api('GET', `/processes/${id}`);
    expect(record.body.state).toMatch(/terminating|idle/);
  });

  it('drops an events stream whose unsent events exceed the queue bound, and keeps serving', async () => {
    const big = await api('POST', '/processes', { code: "console.log('x'.repeat(100 * 1024))", wait: true });
    expect(big.body).toMatchObject({ exitState: 'success' });
    // The replay alone (100 KiB of stdout) is over the 64 KiB bound: the stream ends without it.
    const dropped = await fetch(`${url()}/processes/${big.body.id}/events`);
    expect(dropped.status).toBe(200);
    const events = parseSse(await dropped.text());
    expect(events.map((event) => event.event)).not.toContain('exit');
    expect(events.map((event) => event.event)).not.toContain('stdout');
    const small = await api('POST', '/processes', { code: "console.log('small')", wait: true });
    const whole = parseSse(await (await fetch(`${url()}/processes/${small.body.id}/events`)).text());
    expect(whole.map((event) => event.event)).toEqual(['state', 'stdout', 'exit']);
  });
});

describe('process routes under lowered limits', () => {
  const { api } = useServer({
    maxCodeBytes: 200,
    maxStdoutBytes: 16,
    maxStderrBytes: 8,
    maxOutputBytes: 32,
  });

  it('answers 413 for code over the code-size limit, counted in UTF-8 bytes', async () => {
    expectError(await api('POST', '/processes', { code: `// ${'x'.repeat(200)}` }), 413, 'payload_too_large');
    // 102 characters, 201 bytes.
    expectError(await api('POST', '/processes', { code: `//${'é'.repeat(99)}x` }), 413, 'payload_too_large');
    expect((await api('POST', '/processes', { code: '1', wait: true })).body).toMatchObject({
      exitState: 'success',
    });
  });

  it('truncates stdout and stderr at their caps with a marker, and refuses output over its cap', async () => {
    const result = await api('POST', '/processes', {
      code: "console.log('a'.repeat(40)); console.error('b'.repeat(40)); cyrnel.output({ k: 'c'.repeat(40) });",
      wait: true,
    });
    expect(result.body).toMatchObject({ state: 'idle', exitState: 'failed', output: {} });
    expect(result.body.stdout.startsWith(`${'a'.repeat(16)}\n`)).toBe(true);
    expect(result.body.stdout).toMatch(/truncated/);
    expect(result.body.stdout).not.toContain('a'.repeat(17));
    expect(result.body.stderr.startsWith(`${'b'.repeat(8)}\n`)).toBe(true);
    expect(result.body.error).toMatch(/32/);
    // The sandbox received the same caps as its config defaults (nothing stored), and the test
    // server's --warm-sandboxes 0.
    expect((await api('GET', '/modules/typescript-ivm/config')).body.config).toMatchObject({
      warmSandboxes: 0,
      stdoutCapBytes: 16,
      stderrCapBytes: 8,
      outputCapBytes: 32,
    });
  });
});
