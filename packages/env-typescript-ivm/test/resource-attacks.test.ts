import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type startEnvironment as Start, startEnvironment } from './recording-bindings';

let sandbox: Awaited<ReturnType<typeof Start>>;
let baselineRss = 0;

beforeAll(async () => {
  sandbox = await startEnvironment(
    { poolSize: 1, memoryLimitMb: 32, stdoutCapBytes: 4096, stderrCapBytes: 4096, outputCapBytes: 65_536 },
    { 'svc.echo': (p) => p, 'svc.never': () => new Promise(() => {}) },
  );
  baselineRss = process.memoryUsage().rss;
});
afterAll(() => sandbox.env.teardown());

async function expectHealthy() {
  const { exit, record } = await sandbox.run(
    'cyrnel.output({ ok: await cyrnel.services.svc.tools.echo.invoke({ v: 1 }) });',
  );
  expect(exit).toBe('success');
  expect(record.output).toEqual({ ok: { v: 1 } });
  expect(process.memoryUsage().rss).toBeLessThan(baselineRss + 256 * 1024 * 1024);
}

describe('resource attacks', () => {
  it.each([
    ['a synchronous infinite loop', 'for (;;) {}'],
    ['an async infinite loop', 'for (;;) await null;'],
    ['a loop awaiting host callbacks', 'for (;;) await cyrnel.services.svc.tools.echo.invoke({});'],
    ['a loop awaiting timers', 'for (;;) await new Promise((r) => setTimeout(r, 0));'],
    ['a tool call that never answers', 'await cyrnel.services.svc.tools.never.invoke({});'],
    ['a self-rescheduling timer', 'const f = () => setTimeout(f, 0); f(); await new Promise(() => {});'],
  ])('ends %s at the deadline with timeout', async (_name, code) => {
    const { exit, record } = await sandbox.run(code, 400);
    expect(exit).toBe('timeout');
    expect(record.states).toEqual(['queued', 'running']);
    await expectHealthy();
  });

  it.each([
    ['a promise that never settles', 'await new Promise(() => {});'],
    [
      'a promise whose only timer was cleared',
      'await new Promise((r) => clearTimeout(setTimeout(r, 60_000)));',
    ],
    [
      'a wait after the last call answered',
      'await cyrnel.services.svc.tools.echo.invoke({}); await new Promise(() => {});',
    ],
    [
      'a never-settling promise in a timer callback',
      'await new Promise((r) => setTimeout(() => r(new Promise(() => {})), 5));',
    ],
  ])('fails %s at once as a deadlock instead of waiting for the timeout', async (_name, code) => {
    const started = Date.now();
    const { exit, record } = await sandbox.run(code, 60_000);
    expect(exit).toBe('failed');
    expect(record.errors[0]).toMatch(/waiting for a promise that nothing can settle/);
    expect(Date.now() - started).toBeLessThan(2000);
    await expectHealthy();
  });

  it('lets the program catch a stack overflow from deep recursion', async () => {
    const { exit, record } = await sandbox.run(`
      const f = (n: number): number => f(n + 1) + 1;
      try { f(0); } catch (err) { cyrnel.output({ caught: err instanceof RangeError, message: (err as Error).message }); }
    `);
    expect(exit).toBe('success');
    expect(record.output).toEqual({ caught: true, message: 'Maximum call stack size exceeded' });
    await expectHealthy();
  });

  it('fails an uncaught stack overflow with its message', async () => {
    const { exit, record } = await sandbox.run('const f = (n: number): number => f(n + 1) + 1;\nf(0);');
    expect(exit).toBe('failed');
    expect(record.errors[0]).toContain('Maximum call stack size exceeded');
    await expectHealthy();
  });

  // Map/Set/dictionary bombs can abort the whole child: supervision.test.ts watches those.
  it.each([
    ['array', 'const a: unknown[] = []; for (;;) a.push({ x: Math.random() });'],
    ['string', "const a: string[] = []; for (let i = 0; ; i++) a.push('x'.repeat(100000) + i);"],
    ['string doubling', "let s = 'xy'; for (;;) s += s + Math.random();"],
    ['ArrayBuffer', 'const a: ArrayBuffer[] = []; for (;;) a.push(new ArrayBuffer(1024 * 1024));'],
    ['typed array', 'const a: Float64Array[] = []; for (;;) a.push(new Float64Array(1 << 20));'],
  ])('fails a %s memory bomb saying the memory limit was hit', async (_kind, code) => {
    const { exit, record } = await sandbox.run(code, 30_000);
    expect(exit).toBe('failed');
    expect(record.errors[0]).toMatch(/memory limit/i);
    await expectHealthy();
  });

  it('rejects output beyond the cap with a catchable error', async () => {
    const { exit, record } = await sandbox.run(`
      cyrnel.output({ small: 1 });
      try { cyrnel.output({ big: 'x'.repeat(100000) }); } catch (e) { cyrnel.output({ caught: (e as Error).message }); }
    `);
    expect(exit).toBe('success');
    expect(record.output.small).toBe(1);
    expect(record.output.big).toBeUndefined();
    expect(record.output.caught).toMatch(/over the limit of 65536 bytes/);
    await expectHealthy();
  });

  it('fails an uncaught oversized output', async () => {
    const { exit, record } = await sandbox.run("cyrnel.output({ big: 'x'.repeat(100000) });");
    expect(exit).toBe('failed');
    expect(record.errors[0]).toMatch(/over the limit/);
    await expectHealthy();
  });

  it('throws a catchable error for output nested deeper than 64 levels, at any depth', async () => {
    const { exit, record } = await sandbox.run(`
      const nest = (depth: number) => { let v: unknown = {}; for (let i = 1; i < depth; i++) v = [v]; return v; };
      cyrnel.output({ fits: nest(63) });
      const caught: string[] = [];
      for (const depth of [64, 5000, 200_000]) {
        try { cyrnel.output({ deep: nest(depth) }); } catch (e) { caught.push((e as Error).message.slice(-95)); }
      }
      cyrnel.output({ caught });
    `);
    expect(exit).toBe('success');
    const message =
      'is nested too deeply: the output allows at most 64 levels of arrays and objects, the output object included';
    expect(record.output.caught).toEqual([message.slice(-95), message.slice(-95), message.slice(-95)]);
    expect(record.output.deep).toBeUndefined();
    expect(JSON.stringify(record.output.fits)).toBe(`${'['.repeat(62)}{}${']'.repeat(62)}`);
    await expectHealthy();
  });

  it('rejects an invoke with parameters nested too deeply, without calling the tool', async () => {
    const { exit, record } = await sandbox.run(`
      const nest = (depth: number) => { let v: Record<string, unknown> = {}; for (let i = 1; i < depth; i++) v = { v }; return v; };
      // Shared references: 2^70 paths, each object walked once per depth.
      let dag: Record<string, unknown> = {};
      for (let i = 0; i < 70; i++) dag = { a: dag, b: dag };
      let wide: Record<string, unknown> = {};
      for (let i = 0; i < 12; i++) wide = { a: wide, b: wide };
      const results = [];
      for (const params of [nest(64), nest(65), nest(200_000), dag, wide]) {
        results.push(await cyrnel.services.svc.tools.echo.invoke(params).then(() => 'ok', (e) => e.status + ' ' + e.code + ' ' + e.message));
      }
      cyrnel.output({ results });
    `);
    expect(exit).toBe('success');
    const refused =
      '400 invalid_request invoke: the parameters are nested too deeply (at most 64 levels of arrays and objects)';
    expect(record.output.results).toEqual(['ok', refused, refused, refused, 'ok']);
    // What reaches the host is a JSON tree: shared references arrive expanded, as separate objects.
    expect(record.calls).toHaveLength(2);
    const received = record.calls[1]?.parameters as Record<string, unknown>;
    expect(received.a).toEqual(received.b);
    expect(received.a).not.toBe(received.b);
    await expectHealthy();
  });

  it('prints values too deep for JSON without failing', async () => {
    const { exit, record } = await sandbox.run(`
      let v: unknown = 1; for (let i = 0; i < 200_000; i++) v = [v];
      let o: unknown = 1; for (let i = 0; i < 200_000; i++) o = { o };
      console.log('deep', v, o);
    `);
    expect(exit).toBe('success');
    expect(record.stdout).toBe('deep [unprintable] [object Object]\n');
    await expectHealthy();
  });

  it('bounds a console flood to the cap', async () => {
    const { exit, record } = await sandbox.run("for (;;) console.log('x'.repeat(1000));", 400);
    expect(exit).toBe('timeout');
    expect(Buffer.byteLength(record.stdout)).toBeLessThan(4096 + 100);
    expect(record.stdout).toContain('[stdout truncated');
    await expectHealthy();
  });

  it('bounds a stderr flood to its cap', async () => {
    const { exit, record } = await sandbox.run("for (;;) console.error('e'.repeat(1000));", 400);
    expect(exit).toBe('timeout');
    expect(record.stdout).toBe('');
    expect(Buffer.byteLength(record.stderr)).toBeLessThan(4096 + 100);
    expect(record.stderr).toContain('[stderr truncated');
    await expectHealthy();
  });

  it('bounds one enormous console line', async () => {
    const { exit, record } = await sandbox.run("console.log('y'.repeat(5_000_000)); console.error('after');");
    expect(exit).toBe('success');
    expect(Buffer.byteLength(record.stdout)).toBeLessThan(4096 + 100);
    expect(record.stderr).toBe('after\n');
    await expectHealthy();
  });

  it('handles thousands of concurrent tool calls', async () => {
    const { exit, record } = await sandbox.run(`
      const results = await Promise.all(Array.from({ length: 3000 }, (_, i) => cyrnel.services.svc.tools.echo.invoke({ i })));
      cyrnel.output({ count: results.length, last: results[2999] });
    `);
    expect(exit).toBe('success');
    expect(record.output).toEqual({ count: 3000, last: { i: 2999 } });
    await expectHealthy();
  });

  it('rejects pending calls beyond the limit and times out thousands that never answer', async () => {
    const { exit, record } = await sandbox.run(
      `
      const calls = Array.from({ length: 6000 }, () => cyrnel.services.svc.tools.never.invoke({}).catch((e) => e.status + ' ' + e.code));
      const first = await Promise.race(calls);
      console.log('first settled with', first);
      await Promise.all(calls);
    `,
      1500,
    );
    expect(exit).toBe('timeout');
    expect(record.stdout).toBe('first settled with 429 too_many_calls\n');
    await expectHealthy();
  });
});
