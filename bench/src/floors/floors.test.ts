import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIVIAL } from '../programs.ts';
import { startUpstream, type Upstream } from '../upstream.ts';
import { fetchEcho, parallelFetches, sequentialFetches } from './fetch-calls.ts';
import { startHonoEcho } from './hono-echo.ts';
import { createIvmFloor } from './ivm-context.ts';

const execFileAsync = promisify(execFile);
const IVM_CONTEXT = fileURLToPath(new URL('./ivm-context.ts', import.meta.url));

describe('floors', () => {
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(() => upstream.close());

  it('echoes through the upstream and serves its OpenAPI description', async () => {
    expect(await fetchEcho(upstream.url, 7)).toEqual({ ok: true, n: 7 });
    await sequentialFetches(upstream.url, 5);
    await parallelFetches(upstream.url, 5);
    const doc = (await (await fetch(`${upstream.url}/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
      paths: Record<string, { get: { operationId: string } }>;
    };
    expect(doc.servers[0]?.url).toBe(upstream.url);
    expect(doc.paths['/echo']?.get.operationId).toBe('echo');
  });

  it('answers the hono echo with the body it got', async () => {
    const echo = await startHonoEcho();
    try {
      const res = await fetch(`${echo.url}/echo`, {
        method: 'POST',
        body: JSON.stringify({ code: TRIVIAL }),
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ code: TRIVIAL });
    } finally {
      await echo.close();
    }
  });

  it('runs TypeScript in a fresh context each time, nothing leaking between runs', async () => {
    const floor = createIvmFloor();
    try {
      expect(await floor.run(TRIVIAL)).toEqual({ ok: true });
      expect(
        await floor.run('const x: number = 2; (globalThis as any).leak = 1; cyrnel.output({ x });'),
      ).toEqual({ x: 2 });
      expect(await floor.run('cyrnel.output({ leak: typeof (globalThis as any).leak });')).toEqual({
        leak: 'undefined',
      });
    } finally {
      floor.close();
    }
  });

  it('queues runs beyond its isolates', async () => {
    const floor = createIvmFloor({ isolates: 2 });
    try {
      const outputs = await Promise.all(
        Array.from({ length: 20 }, (_, i) => floor.run(`cyrnel.output({ i: ${i} });`)),
      );
      expect(outputs).toEqual(Array.from({ length: 20 }, (_, i) => ({ i })));
    } finally {
      floor.close();
    }
  });

  // In a process of its own: an isolate running out of memory can leave the process that holds it
  // hanging (it once held a test fork asleep for minutes, past every timeout). cyrnel runs its
  // isolates in sandbox processes for the same reason.
  it('replaces an isolate that ran out of memory', async () => {
    const script = `
      import { createIvmFloor } from ${JSON.stringify(IVM_CONTEXT)};
      const floor = createIvmFloor({ isolates: 1 });
      const failed = await floor.run('const a = []; for (;;) a.push(new Array(1e6).fill(1));').then(() => false, () => true);
      const after = [await floor.run(${JSON.stringify(TRIVIAL)}), await floor.run(${JSON.stringify(TRIVIAL)})];
      floor.close();
      process.stdout.write(JSON.stringify({ failed, after }));
    `;
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--no-node-snapshot', '--input-type=module', '-e', script],
      { timeout: 60_000, killSignal: 'SIGKILL' },
    );
    expect(JSON.parse(stdout)).toEqual({ failed: true, after: [{ ok: true }, { ok: true }] });
  });
});
