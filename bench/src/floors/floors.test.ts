import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIVIAL } from '../programs.ts';
import { startUpstream, type Upstream } from '../upstream.ts';
import { fetchEcho, parallelFetches, sequentialFetches } from './fetch-calls.ts';
import { startHonoEcho } from './hono-echo.ts';
import { createIvmFloor } from './ivm-context.ts';

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

  it('queues runs beyond its isolates and replaces an isolate that ran out of memory', async () => {
    const floor = createIvmFloor({ isolates: 2 });
    try {
      const outputs = await Promise.all(
        Array.from({ length: 20 }, (_, i) => floor.run(`cyrnel.output({ i: ${i} });`)),
      );
      expect(outputs).toEqual(Array.from({ length: 20 }, (_, i) => ({ i })));
      await expect(floor.run('const a = []; for (;;) a.push(new Array(1e6).fill(1));')).rejects.toThrow();
      expect(await floor.run(TRIVIAL)).toEqual({ ok: true });
      expect(await floor.run(TRIVIAL)).toEqual({ ok: true });
    } finally {
      floor.close();
    }
  });
});
