import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CatalogChange, DirectCallEvent, EnvironmentBindings, EnvironmentModule } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypescriptEnvironment } from '../src';
import { createRecordingBindings, createRecordingLogger, waitFor } from './recording-bindings';

// A runtime as the host would provide it, reduced to what the environment relies on: it routes
// `fast.*` itself (answering the parameters, or failing for `fast.fail`), `slow.*` after a long
// wait, and everything else to the host; a change makes it forget what it prepared.
const RUNTIME = `
let prepared = new Set();
export function createDirectCallRuntime() {
  return {
    async route(serviceId, toolId, parameters, prepare) {
      if (serviceId !== 'fast' && serviceId !== 'slow') return undefined;
      if (!prepared.has(serviceId)) {
        const answer = await prepare(serviceId, toolId);
        if (!answer) return undefined;
        prepared.add(serviceId);
      }
      return {
        async run(signal) {
          if (serviceId === 'slow') await new Promise((resolve) => setTimeout(resolve, 60_000));
          if (toolId === 'fail') throw Object.assign(new Error('upstream said no'), { status: 502, code: 'upstream_error', reason: 'upstream_failed' });
          return { echoed: parameters, pid: process.pid };
        },
      };
    },
    async changed(change) {
      prepared = new Set();
      globalThis.__changes = (globalThis.__changes ?? 0) + 1;
    },
    async close() {},
  };
}
`;

describe('direct calls in the typescript-ivm environment', () => {
  let dir: string;
  let env: EnvironmentModule;
  let recording: ReturnType<typeof createRecordingBindings>;
  const events = new Map<number, DirectCallEvent[]>();
  const prepares: string[] = [];
  let listener: ((change: CatalogChange) => Promise<void>) | undefined;
  let next = 1;

  const run = async (code: string, timeoutMs = 20_000) => {
    const eid = next++;
    const exit = await env.execute({ eid, code, options: { timeoutMs }, envConfig: {} });
    return { exit, record: recording.of(eid), events: events.get(eid) ?? [], eid };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cyrnel-direct-'));
    writeFileSync(join(dir, 'runtime.mjs'), RUNTIME);
    recording = createRecordingBindings({ 'host.echo': (parameters) => ({ viaHost: parameters }) });
    const bindings: EnvironmentBindings = {
      ...recording.bindings,
      directCalls: {
        runtimeUrl: pathToFileURL(join(dir, 'runtime.mjs')).href,
        async prepare(_eid, serviceId, toolId) {
          prepares.push(`${serviceId}.${toolId}`);
          return { ok: true };
        },
        record(eid, event) {
          const list = events.get(eid) ?? [];
          list.push(event);
          events.set(eid, list);
        },
        onChange(next) {
          listener = next;
          return () => {
            listener = undefined;
          };
        },
      },
    };
    env = createTypescriptEnvironment();
    await env.setup({
      config: { poolSize: 1, memoryLimitMb: 64 },
      secrets: {},
      logger: createRecordingLogger().logger,
      bindings,
    });
  });
  afterAll(async () => {
    await env?.teardown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes routed calls in the sandbox process and records each with its end before the run ends', async () => {
    const {
      exit,
      record,
      events: seen,
    } = await run(`
      const a = await cyrnel.services.fast.tools.echo.invoke({ n: 1 });
      const b = await cyrnel.services.host.tools.echo.invoke({ n: 2 });
      let failure;
      try { await cyrnel.services.fast.tools.fail.invoke({}); } catch (e) { failure = { status: e.status, reason: e.reason, message: e.message }; }
      const many = await Promise.all([1, 2, 3].map((n) => cyrnel.services.fast.tools.echo.invoke({ n })));
      cyrnel.output({ a: a.echoed, child: a.pid !== undefined, b, failure, many: many.map((m) => m.echoed.n) });
    `);
    expect(exit).toBe('success');
    expect(record.output).toEqual({
      a: { n: 1 },
      child: true,
      b: { viaHost: { n: 2 } },
      failure: { status: 502, reason: 'upstream_failed', message: 'upstream said no' },
      many: [1, 2, 3],
    });
    // Only the host's tool went through invokeTool; the service was prepared once.
    expect(record.calls.map((call) => `${call.serviceId}.${call.toolId}`)).toEqual(['host.echo']);
    expect(prepares.filter((name) => name.startsWith('fast.'))).toEqual(['fast.echo']);
    // Five direct calls, each started and ended, all read before the run ended.
    const starts = seen.filter((event) => event.kind === 'start');
    const ends = seen.filter((event) => event.kind === 'end');
    expect(starts.map((event) => event.kind === 'start' && event.toolId)).toEqual([
      'echo',
      'fail',
      'echo',
      'echo',
      'echo',
    ]);
    expect(ends).toHaveLength(5);
    expect(ends.filter((event) => event.kind === 'end' && !event.ok)).toMatchObject([
      { errorCode: 'upstream_error', errorReason: 'upstream_failed' },
    ]);
  });

  it('answers a catalog change only once the sandbox process dropped what it prepared', async () => {
    await run('await cyrnel.services.fast.tools.echo.invoke({});');
    const before = prepares.length;
    expect(listener).toBeDefined();
    await listener?.({ revision: 'r2', dropped: [] });
    await run('await cyrnel.services.fast.tools.echo.invoke({});');
    // Prepared again after the change.
    expect(prepares.length).toBe(before + 1);
  });

  it('keeps the record of a call in flight when its sandbox process dies', async () => {
    const pending = run('await cyrnel.services.slow.tools.wait.invoke({});', 60_000);
    await waitFor(() => (events.get(next - 1) ?? []).some((event) => event.kind === 'start'));
    const start = events.get(next - 1)?.[0];
    expect(start).toMatchObject({ kind: 'start', serviceId: 'slow', toolId: 'wait' });
    // The child that made it: the one the test runtime reports through a finished call.
    const { record } = await run(
      'cyrnel.output({ pid: (await cyrnel.services.fast.tools.echo.invoke({})).pid });',
    );
    process.kill(record.output.pid as number, 'SIGKILL');
    const ended = await pending;
    expect(ended.exit).toBe('failed');
    expect(ended.record.errors.join('\n')).toMatch(/sandbox/);
    expect(ended.events.filter((event) => event.kind === 'start')).toHaveLength(1);
  });
});
