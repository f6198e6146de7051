import type { AdapterModule } from '@cyrnel/sdk';
import { isJsonText } from '@cyrnel/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  alive,
  EVERYTHING,
  FIXTURE,
  install,
  nodeServer,
  recordingLogger,
  setUpAdapter,
  until,
} from './harness';

const adapters: AdapterModule[] = [];
afterEach(async () => {
  for (const adapter of adapters.splice(0)) await adapter.teardown();
});

async function fixture(env: Record<string, string> = {}) {
  const { logger, lines } = recordingLogger();
  const set = { ...(await setUpAdapter({ logger })), lines };
  adapters.push(set.adapter);
  const definition = await install(set.adapter, 'fx', nodeServer(FIXTURE, [], env));
  const call = (toolId: string, parameters: Record<string, unknown> = {}, signal?: AbortSignal) =>
    set.adapter.invoke({ serviceId: 'fx', toolId, parameters, ...(signal ? { signal } : {}) });
  return { ...set, definition, call };
}

describe('a stdio MCP server written with the official SDK (the fixture)', () => {
  it('becomes a service: its name, instructions, tools with identifier ids and their schemas', async () => {
    const { definition } = await fixture();
    expect(definition.name).toBe('Fixture server');
    expect(definition.description).toBe('Tools for the adapter tests');
    const ids = definition.tools.map((tool) => tool.id);
    expect(ids).toEqual(
      expect.arrayContaining(['add', 'fail', 'get_env', 'plain_text', 'spawn_grandchild', 'slow']),
    );
    const add = definition.tools.find((tool) => tool.id === 'add');
    expect(add).toMatchObject({
      name: 'Add two numbers',
      description: 'The sum of a and b',
      adapterDomain: { name: 'add' },
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
    });
    // The original name is used on the wire and found by search.
    expect(definition.tools.find((tool) => tool.id === 'get_env')).toMatchObject({
      adapterDomain: { name: 'get-env' },
      keywords: ['get-env'],
    });
    expect(definition.configSchema).toMatchObject({ properties: { timeoutMs: { default: 60_000 } } });
  });

  it("carries the tools' boolean hints over as annotations, and none for a tool without hints", async () => {
    const { definition } = await fixture();
    const annotationsOf = (id: string) => definition.tools.find((tool) => tool.id === id)?.annotations;
    expect(annotationsOf('forget')).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: true,
      openWorld: false,
    });
    expect(annotationsOf('lookup')).toEqual({ readOnly: true });
    expect(definition.tools.find((tool) => tool.id === 'lookup')?.name).toBe('Look up');
    expect(annotationsOf('add')).toEqual({});
  });

  it('answers structuredContent, parsed JSON text, plain text, and rejects an isError result with its text', async () => {
    const { call } = await fixture();
    expect(await call('add', { a: 2, b: 3 })).toEqual({ sum: 5 });
    expect(await call('pid')).toEqual({ pid: expect.any(Number) });
    expect(await call('plain_text')).toBe('not json at all');
    await expect(call('fail')).rejects.toMatchObject({
      reason: 'tool_error',
      message: expect.stringContaining('the fixture failed on purpose'),
    });
    // A tool error keeps the connection: the same server answers the next call.
    const before = (await call('pid')) as { pid: number };
    await call('fail').catch(() => undefined);
    expect(await call('pid')).toEqual(before);
  });

  it("starts the server with a minimal environment plus the definition's env, never cyrnel's own", async () => {
    process.env.CYRNEL_SECRETS_KEY = 'must-not-leak';
    process.env.CYRNEL_API_KEY = 'must-not-leak-either';
    try {
      const { call } = await fixture({ FIXTURE_GREETING: 'hello' });
      const env = (await call('get_env')) as Record<string, string>;
      expect(env.FIXTURE_GREETING).toBe('hello');
      expect(env.PATH).toBe(process.env.PATH);
      expect(JSON.stringify(env)).not.toContain('must-not-leak');
      expect(Object.keys(env).filter((name) => name.startsWith('CYRNEL_'))).toEqual([]);
    } finally {
      delete process.env.CYRNEL_SECRETS_KEY;
      delete process.env.CYRNEL_API_KEY;
    }
  });

  it('kills the whole process group when the service is dehydrated (a grandchild too)', async () => {
    const { adapter, call } = await fixture();
    const { pid: server } = (await call('pid')) as { pid: number };
    const { pid: grandchild } = (await call('spawn_grandchild')) as { pid: number };
    expect(alive(server) && alive(grandchild)).toBe(true);
    await adapter.dehydrateService('fx');
    await until(() => !alive(server) && !alive(grandchild));
  });

  it('fails a call with upstream_crashed when the server dies mid-call, its stderr only in the log, and starts it again', async () => {
    const token = 'fixture-token-7f3a9c';
    const { call, lines } = await fixture({ FIXTURE_TOKEN: token });
    const { pid: first } = (await call('pid')) as { pid: number };
    const failure = await call('crash').catch((error: unknown) => error as Error & { reason: string });
    expect(failure).toMatchObject({
      reason: 'upstream_crashed',
      message:
        'the MCP server of service fx exited (code 3) during the call; its output is in the server log',
    });
    expect(JSON.stringify(failure)).not.toContain(token);
    // The server's stderr is in the log, where the host's redactor sees it.
    await until(() => lines.some((line) => line.includes('MCP server exited')));
    expect(lines.find((line) => line.includes('MCP server stderr'))).toContain(token);
    const { pid: second } = (await call('pid')) as { pid: number };
    expect(second).not.toBe(first);
    expect(alive(first)).toBe(false);
  });

  it('fails only the call whose answer is larger than 16 MiB: the same server answers the next call', async () => {
    const { call } = await fixture();
    const { pid: first } = (await call('pid')) as { pid: number };
    await expect(call('huge')).rejects.toMatchObject({
      reason: 'upstream_answer_too_large',
      message: expect.stringContaining('larger than 16777216 bytes'),
    });
    expect(await call('add', { a: 2, b: 3 })).toEqual({ sum: 5 });
    const { pid: second } = (await call('pid')) as { pid: number };
    expect(second).toBe(first);
  });

  it('fails only the call whose answer nests too deep or has too many elements, before parsing it', async () => {
    const { call } = await fixture();
    const { pid: first } = (await call('pid')) as { pid: number };
    // Small (read on the main thread) and large (read in a worker) alike.
    await expect(call('deep', { depth: 65 })).rejects.toMatchObject({ reason: 'upstream_answer_too_large' });
    await expect(call('deep', { depth: 200_000 })).rejects.toMatchObject({
      reason: 'upstream_answer_too_large',
      message: expect.stringContaining('deeper than 64'),
    });
    await expect(call('wide', { count: 1_100_000 })).rejects.toMatchObject({
      reason: 'upstream_answer_too_large',
      message: expect.stringContaining('more than 1000000 elements'),
    });
    expect(await call('deep', { depth: 3 })).toEqual([[[]]]);
    expect(((await call('pid')) as { pid: number }).pid).toBe(first);
  });

  it('reads a large answer in a worker and hands it on as JSON text, never parsed on the main thread', async () => {
    const { call } = await fixture();
    const result = await call('big', { mb: 2 });
    expect(isJsonText(result)).toBe(true);
    const items = JSON.parse((result as { text: string }).text) as { id: number; name: string }[];
    expect(items.length).toBeGreaterThan(30_000);
    expect(items[7]).toEqual({ id: 7, name: 'item 7 with a little padding text' });
    // A small answer stays a value.
    expect(await call('big', { mb: 0.001 })).toEqual(
      expect.arrayContaining([{ id: 0, name: 'item 0 with a little padding text' }]),
    );
  });

  it('starts a server that died while idle again on the next call', async () => {
    const { call } = await fixture();
    const { pid: first } = (await call('pid')) as { pid: number };
    process.kill(first, 'SIGKILL');
    await until(() => !alive(first));
    const { pid: second } = (await call('pid')) as { pid: number };
    expect(second).not.toBe(first);
  });

  it('times out a call past the service timeoutMs and cancels the MCP request', async () => {
    const set = await setUpAdapter();
    adapters.push(set.adapter);
    await install(set.adapter, 'fx', nodeServer(FIXTURE), { config: { timeoutMs: 200 } });
    await expect(
      set.adapter.invoke({ serviceId: 'fx', toolId: 'slow', parameters: { ms: 20_000 } }),
    ).rejects.toMatchObject({ reason: 'invoke_timeout' });
    // The connection stays: the next call is answered by the same server.
    expect(await set.adapter.invoke({ serviceId: 'fx', toolId: 'add', parameters: { a: 1, b: 1 } })).toEqual({
      sum: 2,
    });
  });

  it('stops waiting when the call is aborted (a killed process), and cancels the MCP request', async () => {
    const { call } = await fixture();
    await call('pid'); // connected: the slow call is sent at once
    const controller = new AbortController();
    const pending = call('slow', { ms: 20_000 }, controller.signal);
    setTimeout(() => controller.abort(new Error('process killed')), 100);
    await expect(pending).rejects.toThrow('process killed');
    let seen = { cancelled: 0 };
    for (let tries = 0; tries < 50 && seen.cancelled === 0; tries++) {
      seen = (await call('cancelled')) as { cancelled: number };
      if (seen.cancelled === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(seen).toEqual({ cancelled: 1 });
  });

  it('closes every server on teardown (the host stopping)', async () => {
    const { adapter, call } = await fixture();
    const { pid } = (await call('pid')) as { pid: number };
    await adapter.teardown();
    adapters.splice(adapters.indexOf(adapter), 1);
    await until(() => !alive(pid));
    await expect(call('pid')).rejects.toThrow();
  });

  it('reports notifications/tools/list_changed to the host, and refreshDefinition lists the new tool', async () => {
    const { adapter, changed, call, definition } = await fixture();
    expect(definition.tools.some((tool) => tool.id === 'late_tool')).toBe(false);
    await call('add_tool');
    await until(() => changed.includes('fx'));
    const state = {
      id: 'fx',
      adapterDomain: definition.adapterDomain,
      tools: {},
      config: { timeoutMs: 60_000 },
      secrets: {},
    };
    const refreshed = await (adapter.refreshDefinition as NonNullable<typeof adapter.refreshDefinition>)(
      state,
    );
    expect(refreshed.tools.map((tool) => tool.id)).toContain('late_tool');
  });

  it('fails an install whose tool names collide as identifiers, naming both', async () => {
    const { adapter } = await setUpAdapter();
    adapters.push(adapter);
    await expect(adapter.generateDefinition(nodeServer(FIXTURE, ['--collide']))).rejects.toMatchObject({
      reason: 'invalid_definition',
      message: expect.stringMatching(/"a-b" and "a_b" would both be tool a_b/),
    });
  });

  it('refuses a stdio server whose command the module config does not allow (403, nothing started)', async () => {
    const { adapter } = await setUpAdapter({ allowedCommands: [] });
    adapters.push(adapter);
    await expect(adapter.generateDefinition(nodeServer(FIXTURE))).rejects.toMatchObject({
      reason: 'forbidden',
      message: expect.stringContaining('allowedCommands'),
    });
  });

  it('fails with upstream_crashed when a server exits while starting; its stderr goes to the log only', async () => {
    const { logger, lines } = recordingLogger();
    const { adapter } = await setUpAdapter({ logger });
    adapters.push(adapter);
    const text = JSON.stringify({
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', 'console.error("bad token s3cr3t-start-token"); process.exit(1)'],
    });
    const failure = (await adapter.generateDefinition(text).then(
      () => new Error('installed'),
      (error: unknown) => error,
    )) as Error;
    expect(failure).toMatchObject({
      reason: 'upstream_crashed',
      message: expect.stringContaining('exited (code 1) while starting'),
    });
    expect(JSON.stringify({ ...failure, message: failure.message })).not.toContain('s3cr3t-start-token');
    expect(lines.join('\n')).toContain('s3cr3t-start-token');
  });
});

describe('server-everything on stdio', () => {
  it('lists its tools and answers them, with nothing of the environment of the test process', async () => {
    const { adapter } = await setUpAdapter();
    adapters.push(adapter);
    const definition = await install(adapter, 'everything', nodeServer(EVERYTHING, ['stdio']));
    expect(definition.tools.length).toBeGreaterThan(5);
    const call = (toolId: string, parameters: Record<string, unknown>) =>
      adapter.invoke({ serviceId: 'everything', toolId, parameters });
    // Its tools declare hints (echo all four): they become the tools' annotations.
    expect(definition.tools.find((tool) => tool.id === 'echo')?.annotations).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false,
    });
    expect(await call('echo', { message: 'over stdio' })).toBe('Echo: over stdio');
    expect(await call('get_sum', { a: 1, b: 2 })).toMatch(/3/);
    // Its environment tool shows what the server was given: nothing of this process's own.
    expect(process.env.VITEST).toBeDefined();
    const env = JSON.stringify(await call('get_env', {}));
    expect(env).toContain('PATH');
    expect(env).not.toContain('VITEST');
  });
});
