import type { AdapterModule, EnvironmentModule, InvokeInput, ModuleLogger } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { cyrnelError } from '../errors';
import { guardAdapter, guardEnvironment, instantiateModule } from './module-guard';

const logged: string[] = [];
const logger: ModuleLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message, fields) => logged.push(`${message} ${JSON.stringify(fields)}`),
};

const never = new Promise<never>(() => {});

/** A small adapter whose calls are given per test; the guard is what is tested. */
function adapter(parts: Partial<AdapterModule> = {}): AdapterModule & { torn: number } {
  const self = {
    torn: 0,
    setup: async () => {},
    teardown: async () => {
      self.torn++;
    },
    generateDefinition: async () => ({
      name: 'x',
      description: 'x',
      configSchema: {},
      secretsSchema: {},
      adapterDomain: {},
      tools: [],
    }),
    hydrateService: async () => {},
    dehydrateService: async () => {},
    invoke: async () => ({ ok: true }),
    ...parts,
  };
  return self;
}

const call: InvokeInput = { serviceId: 'svc', toolId: 'tool', parameters: {} };

describe('guardAdapter', () => {
  it('fails a setup past its deadline with module_setup_timeout, and tears the late instance down', async () => {
    let finish!: () => void;
    const inner = adapter({ setup: () => new Promise<void>((resolve) => (finish = resolve)) });
    const guarded = guardAdapter('slow', inner, { logger, deadlines: { setupMs: 30 } });
    await expect(guarded.setup({ config: {}, secrets: {}, logger })).rejects.toMatchObject({
      status: 503,
      reason: 'module_setup_timeout',
      message: 'module slow did not finish setup within 30 ms',
    });
    expect(inner.torn).toBe(0);
    finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(inner.torn).toBe(1);
  });

  it('fails an instantiate past its deadline the same way', async () => {
    await expect(instantiateModule('stuck', () => never, { setupMs: 20 })).rejects.toMatchObject({
      reason: 'module_setup_timeout',
    });
  });

  it('refuses every call after teardown (module_torn_down) and aborts the calls in flight', async () => {
    let seen: AbortSignal | undefined;
    const inner = adapter({
      invoke: (input) => {
        seen = input.signal;
        return never;
      },
    });
    const guarded = guardAdapter('gone', inner, { logger });
    const pending = guarded.invoke(call);
    await guarded.teardown();
    expect(seen?.aborted).toBe(true);
    await expect(pending).rejects.toMatchObject({ status: 503, message: 'module gone was torn down' });
    for (const attempt of [
      () => guarded.invoke(call),
      () => guarded.generateDefinition('{}'),
      () => guarded.hydrateService({ id: 's', adapterDomain: {}, tools: {}, config: {}, secrets: {} }),
      () => guarded.dehydrateService('s'),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ status: 503, reason: 'module_torn_down' });
    }
    await guarded.teardown();
    expect(inner.torn).toBe(1);
  });

  it('aborts the signal an invoke got when its deadline passes, answering 502', async () => {
    let seen: AbortSignal | undefined;
    const guarded = guardAdapter(
      'late',
      adapter({
        invoke: (input) => {
          seen = input.signal;
          return never;
        },
      }),
      { logger, deadlines: { invokeMs: 20 } },
    );
    await expect(guarded.invoke(call)).rejects.toMatchObject({
      status: 502,
      message: 'tool svc.tool timed out after 20 ms',
    });
    expect(seen?.aborted).toBe(true);
  });

  it("passes the caller's abort on to the adapter and answers with the caller's reason", async () => {
    const caller = new AbortController();
    const guarded = guardAdapter(
      'a',
      adapter({
        invoke: (input) =>
          new Promise((_, reject) =>
            input.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
          ),
      }),
      { logger },
    );
    const pending = guarded.invoke({ ...call, signal: caller.signal });
    caller.abort(cyrnelError('process_not_running', 'process p ended'));
    await expect(pending).rejects.toMatchObject({ status: 409, message: 'process p ended' });
  });

  it('translates failures: a refused definition is a 400 naming the adapter, a failed hydration or call a 502', async () => {
    const guarded = guardAdapter(
      'openapi',
      adapter({
        generateDefinition: () => Promise.reject(new Error('paths must be an object')),
        hydrateService: () => Promise.reject(new Error('bad base url')),
        invoke: () => Promise.reject(new Error('connection refused')),
      }),
      { logger },
    );
    await expect(guarded.generateDefinition('x')).rejects.toMatchObject({
      status: 400,
      reason: 'invalid_definition',
      message: 'adapter openapi refused the definition: paths must be an object',
      details: [{ path: 'definition', message: 'paths must be an object' }],
    });
    await expect(
      guarded.hydrateService({ id: 'svc', adapterDomain: {}, tools: {}, config: {}, secrets: {} }),
    ).rejects.toMatchObject({
      status: 502,
      reason: 'upstream_failed',
      message: 'adapter openapi failed to hydrate service svc: bad base url',
    });
    await expect(guarded.invoke(call)).rejects.toMatchObject({
      status: 502,
      reason: 'upstream_failed',
      message: 'connection refused',
    });
  });

  it('logs a teardown that never ends and moves on', async () => {
    logged.length = 0;
    const guarded = guardAdapter('hangs', adapter({ teardown: () => never }), {
      logger,
      deadlines: { teardownMs: 20 },
    });
    await guarded.teardown();
    expect(logged.join('\n')).toContain('timed out after 20 ms');
  });
});

describe('guardEnvironment', () => {
  it('refuses executions and docs after teardown, and kill becomes a no-op', async () => {
    const inner: EnvironmentModule = {
      setup: async () => {},
      teardown: async () => {},
      execute: async () => 'success',
      kill: () => Promise.reject(new Error('should not be called')),
      generateDocs: async () => 'docs',
      generateToolDocs: async () => 'tool docs',
    };
    const guarded = guardEnvironment('env', inner, { logger });
    expect(await guarded.generateDocs()).toBe('docs');
    await guarded.teardown();
    await expect(guarded.generateDocs()).rejects.toMatchObject({ reason: 'module_torn_down' });
    await expect(
      guarded.execute({ eid: 1, code: '', envConfig: {}, timeoutMs: 1 } as never),
    ).rejects.toMatchObject({
      reason: 'module_torn_down',
    });
    await expect(guarded.kill(1)).resolves.toBeUndefined();
    expect(guarded.generateTypes).toBeUndefined();
  });
});
