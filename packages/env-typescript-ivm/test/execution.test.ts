import { cyrnelError, jsonText } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type startEnvironment as Start, startEnvironment } from './recording-bindings';

let sandbox: Awaited<ReturnType<typeof Start>>;

beforeAll(async () => {
  sandbox = await startEnvironment(
    { poolSize: 1, stdoutCapBytes: 64, stderrCapBytes: 64 },
    {
      'math.add': (p) => (p.a as number) + (p.b as number),
      'math.fail': () => {
        throw cyrnelError('upstream_failed', 'upstream exploded');
      },
      'math.disabled': () => {
        throw cyrnelError('tool_disabled', 'tool is disabled');
      },
      'math.text': () => jsonText('{"primes":[2,3,5],"name":"small"}'),
      'math.broken': () => jsonText('{"primes":'),
      'math.large': () =>
        jsonText(JSON.stringify({ items: Array.from({ length: 300_000 }, (_, index) => index * 7) })),
    },
  );
});
afterAll(() => sandbox.env.teardown());

describe('execute', () => {
  it('runs TypeScript with top-level await and reports queued then running', async () => {
    const { exit, record } = await sandbox.run(`
      interface Sum { total: number }
      const sum: Sum = { total: await cyrnel.services.math.tools.add.invoke({ a: 2, b: 3 }) };
      cyrnel.output(sum);
    `);
    expect(exit).toBe('success');
    expect(record.states).toEqual(['queued', 'running']);
    expect(record.output).toEqual({ total: 5 });
    expect(record.calls).toEqual([{ serviceId: 'math', toolId: 'add', parameters: { a: 2, b: 3 } }]);
  });

  it('calls a tool by name with cyrnel.invoke, through the same binding and errors as the proxy', async () => {
    const { exit, record } = await sandbox.run(`
      const total = await cyrnel.invoke('math', 'add', { a: 4, b: 5 });
      const refused = await cyrnel.invoke('math', 'disabled').catch((e) => ({ status: e.status, code: e.code }));
      cyrnel.output({ total, refused });
    `);
    expect(exit).toBe('success');
    expect(record.output).toEqual({ total: 9, refused: { status: 409, code: 'conflict' } });
    expect(record.calls).toEqual([
      { serviceId: 'math', toolId: 'add', parameters: { a: 4, b: 5 } },
      { serviceId: 'math', toolId: 'disabled', parameters: {} },
    ]);
  });

  it('parses a result handed on as JSON text in the sandbox child, and fails one that is not JSON', async () => {
    const { exit, record } = await sandbox.run(`
      const value = await cyrnel.services.math.tools.text.invoke({});
      const broken = await cyrnel.services.math.tools.broken.invoke({}).catch((e) => ({ reason: e.reason }));
      // Over 1 MiB of text: it travels to the child in slices.
      const { items } = await cyrnel.services.math.tools.large.invoke({});
      cyrnel.output({ value, broken, large: [items.length, items[299_999]] });
    `);
    expect(exit).toBe('success');
    expect(record.output).toEqual({
      value: { primes: [2, 3, 5], name: 'small' },
      broken: { reason: 'upstream_failed' },
      large: [300_000, 2_099_993],
    });
  });

  it('merges a loop of output calls in the sandbox: the host gets their merge in a few patches', async () => {
    const { exit, record } = await sandbox.run(`
      const expected: Record<string, unknown> = {};
      for (let i = 0; i < 20000; i++) {
        const patch: Record<string, unknown> = { i, ['k' + (i % 300)]: { at: i, s: 'é'.repeat(i % 7) } };
        if (i % 5000 === 0) patch['big' + i] = 'x'.repeat(20000);
        cyrnel.output(patch);
        Object.assign(expected, patch);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      cyrnel.output({ last: true });
      expected.last = true;
      cyrnel.output({ expected: JSON.stringify(expected) });
    `);
    expect(record.errors).toEqual([]);
    expect(exit).toBe('success');
    const { expected, ...output } = record.output;
    // Every value the program wrote, in the order its keys first appeared: the merge of its calls.
    const want = JSON.parse(expected as string) as Record<string, unknown>;
    expect(output).toEqual(want);
    expect(Object.keys(output)).toEqual(Object.keys(want));
    // Patches go out 5 ms after a quiet spell, then at most 64 KiB a second, not per call: half
    // as many patches as calls would take each call 2.5 ms, twenty times its cost.
    expect(record.outputPatches).toBeGreaterThanOrEqual(2);
    expect(record.outputPatches).toBeLessThan(20_003 / 2);
  });

  it('merges output calls shallowly and rejects non-plain values with a catchable error', async () => {
    const { exit, record } = await sandbox.run(`
      cyrnel.output({ a: 1, b: [1, 'x', null, { c: true }] });
      cyrnel.output({ a: 2 });
      const problems: string[] = [];
      for (const bad of [new Map(), { d: new Date() }, { f: () => 1 }, { n: NaN }, [1], 'x']) {
        try { cyrnel.output(bad as never); } catch (e) { problems.push((e as Error).message); }
      }
      const loop: Record<string, unknown> = {}; loop.self = loop;
      try { cyrnel.output(loop); } catch (e) { problems.push((e as Error).message); }
      cyrnel.output({ problems });
    `);
    expect(exit).toBe('success');
    expect(record.output.a).toBe(2);
    expect(record.output.b).toEqual([1, 'x', null, { c: true }]);
    const problems = record.output.problems as string[];
    expect(problems).toHaveLength(7);
    expect(problems[0]).toContain('plain object');
    expect(problems[1]).toContain('output.d is a Date');
    expect(problems[6]).toContain('circular');
  });

  it('formats console lines: strings verbatim, values as compact JSON, warn/error to stderr', async () => {
    const { record } = await sandbox.run(`
      console.log('a', 1, { b: [2] }, undefined, null);
      console.info('i'); console.debug('d');
      console.warn('w', 10n); console.error(new TypeError('bad'));
    `);
    expect(record.stdout).toBe('a 1 {"b":[2]} undefined null\ni\nd\n');
    expect(record.stderr).toBe('w 10\nTypeError: bad\n');
  });

  it('prints what JSON cannot represent with String(v), and JSON inside JSON', async () => {
    // Several runs: this file's stdout cap is 64 bytes.
    const lines = [
      ['NaN, Infinity, -Infinity, -0, 1.5e300', 'NaN Infinity -Infinity 0 1.5e+300'],
      ['[NaN, -Infinity], { a: NaN, b: -0 }', '[null,null] {"a":null,"b":0}'],
      ["new RangeError('out'), new Error(''), { e: new Error('nested') }", 'RangeError: out Error {"e":{}}'],
      [
        "new (class extends Error { name = 'Custom'; })('mine'), undefined, 7n, Symbol('s'), [undefined]",
        'Custom: mine undefined 7 Symbol(s) [null]',
      ],
    ];
    for (const [args, printed] of lines) {
      const { record } = await sandbox.run(`console.log(${args});`);
      expect(record.stdout).toBe(`${printed}\n`);
    }
  });

  it('truncates stdout at the cap with a marker', async () => {
    const { exit, record } = await sandbox.run(`for (let i = 0; i < 10000; i++) console.log('line ' + i);`);
    expect(exit).toBe('success');
    expect(record.stdout.startsWith('line 0\nline 1\n')).toBe(true);
    expect(record.stdout).toContain('[stdout truncated: limit of 64 bytes reached]');
    expect(record.stdout.length).toBeLessThan(200);
  });

  it('truncates stderr at its own cap with a marker, leaving stdout alone', async () => {
    const { exit, record } = await sandbox.run(
      `console.log('out'); for (let i = 0; i < 10000; i++) console.error('err ' + i);`,
    );
    expect(exit).toBe('success');
    expect(record.stdout).toBe('out\n');
    expect(record.stderr.startsWith('err 0\nerr 1\n')).toBe(true);
    expect(record.stderr).toContain('[stderr truncated: limit of 64 bytes reached]');
    expect(record.stderr.length).toBeLessThan(200);
  });

  it('keeps UTF-8 intact in output, console and across the cap', async () => {
    const { record } = await sandbox.run(`
      const text = 'héllo wörld 日本語 🎉';
      console.log(text);
      console.log('🎉'.repeat(40));
      cyrnel.output({ text, emoji: '👩‍💻' });
    `);
    expect(record.output).toEqual({ text: 'héllo wörld 日本語 🎉', emoji: '👩‍💻' });
    expect(record.stdout.startsWith('héllo wörld 日本語 🎉\n🎉')).toBe(true);
    expect(record.stdout).not.toContain('\uFFFD');
  });

  it('makes tool errors catchable with message, status, code and reason', async () => {
    const { exit, record } = await sandbox.run(`
      const seen = [];
      for (const tool of ['fail', 'disabled', 'missing']) {
        try { await cyrnel.services.math.tools[tool].invoke({}); }
        catch (err) { seen.push({ message: err.message, status: err.status, code: err.code, reason: err.reason, isError: err instanceof Error }); }
      }
      try { await cyrnel.services.math.tools.add.invoke('nope' as never); }
      catch (err) { seen.push({ message: err.message, status: err.status, code: err.code, reason: err.reason, isError: true }); }
      cyrnel.output({ seen });
    `);
    expect(exit).toBe('success');
    expect(record.output.seen).toEqual([
      {
        message: 'upstream exploded',
        status: 502,
        code: 'upstream_error',
        reason: 'upstream_failed',
        isError: true,
      },
      { message: 'tool is disabled', status: 409, code: 'conflict', reason: 'tool_disabled', isError: true },
      {
        message: 'Unknown tool math.missing',
        status: 404,
        code: 'not_found',
        reason: 'tool_not_found',
        isError: true,
      },
      {
        message: 'invoke expects a parameters object',
        status: 400,
        code: 'invalid_request',
        reason: 'invalid_parameters',
        isError: true,
      },
    ]);
  });

  it('offers discovery through the bindings, with a TypeScript signature', async () => {
    const { record } = await sandbox.run(`
      cyrnel.output({
        services: await cyrnel.discover.services(),
        tools: await cyrnel.discover.tools({ serviceId: 'math' }),
        tool: await cyrnel.discover.tool('math', 'add'),
      });
    `);
    expect(record.output.services).toEqual([
      { id: 'math', name: 'Math', description: 'Arithmetic', toolCount: 1 },
    ]);
    expect(record.output.tools).toEqual([
      { serviceId: 'math', toolId: 'add', name: 'Add', description: 'Adds' },
    ]);
    expect((record.output.tool as { signature: string }).signature).toBe(
      '(parameters: {\n  a: number;\n  b: number;\n}) => Promise<number>',
    );
  });

  it('supports setTimeout and clearTimeout', async () => {
    const { record } = await sandbox.run(`
      const order: string[] = [];
      const cleared = setTimeout(() => order.push('never'), 5);
      clearTimeout(cleared);
      await new Promise<void>((resolve) => setTimeout(() => { order.push('late'); resolve(); }, 20));
      setTimeout((x: string) => order.push(x), 0, 'arg');
      await new Promise((r) => setTimeout(r, 10));
      cyrnel.output({ order });
    `);
    expect(record.output.order).toEqual(['late', 'arg']);
  });

  it('frees the host timer on clearTimeout, so cleared timers never count toward the limit', async () => {
    const { exit, record } = await sandbox.run(`
      for (let i = 0; i < 6000; i++) clearTimeout(setTimeout(() => console.log('never'), 60_000));
      await new Promise((r) => setTimeout(r, 1));
      cyrnel.output({ ok: true });
    `);
    expect(record.errors).toEqual([]);
    expect(exit).toBe('success');
    expect(record.output).toEqual({ ok: true });
    expect(record.stdout).toBe('');
  });

  it('throws a catchable error from setTimeout beyond the pending limit', async () => {
    const { exit, record } = await sandbox.run(`
      const ids = Array.from({ length: 5000 }, () => setTimeout(() => {}, 60_000));
      let refused: unknown;
      try { setTimeout(() => {}, 0); } catch (err: any) { refused = { message: err.message, code: err.code, reason: err.reason, status: err.status }; }
      const call = await cyrnel.services.math.tools.add.invoke({ a: 1, b: 1 }).catch((err) => err.code);
      ids.forEach(clearTimeout);
      await new Promise((r) => setTimeout(r, 1));
      cyrnel.output({ refused, call, after: await cyrnel.services.math.tools.add.invoke({ a: 1, b: 1 }) });
    `);
    expect(exit).toBe('success');
    expect(record.output).toEqual({
      refused: {
        message: 'setTimeout: too many pending calls and timers (limit 5000); await or clear some first',
        code: 'too_many_calls',
        reason: 'too_many_calls',
        status: 429,
      },
      call: 'too_many_calls',
      after: 2,
    });
  });

  it('fails on a syntax error with the transpiler message and line', async () => {
    const { exit, record } = await sandbox.run('const ok = 1;\nconst broken = ;\n');
    expect(exit).toBe('failed');
    expect(record.errors[0]).toMatch(/^SyntaxError: .*\(2:16\)/);
    expect(record.states).toEqual(['queued', 'running']);
  });

  it('fails on an uncaught error with its message and line', async () => {
    const { exit, record } = await sandbox.run('const a = 1;\n\nthrow new RangeError("bad " + a);');
    expect(exit).toBe('failed');
    expect(record.errors).toEqual(['RangeError: bad 1 (line 3, column 7)']);
  });

  it('accepts timeouts longer than Node timers allow', async () => {
    const { exit } = await sandbox.run('cyrnel.output({ ok: 1 });', 1e12);
    expect(exit).toBe('success');
  });

  it('fails on an unhandled promise rejection', async () => {
    const { exit, record } = await sandbox.run("Promise.reject(new Error('nobody listens'));");
    expect(exit).toBe('failed');
    expect(record.errors[0]).toContain('Error: nobody listens');
  });

  it('ends early on a top-level return', async () => {
    const { exit, record } = await sandbox.run(
      'cyrnel.output({ a: 1 });\nif (true) return;\ncyrnel.output({ b: 2 });',
    );
    expect(exit).toBe('success');
    expect(record.output).toEqual({ a: 1 });
  });

  it('rejects import statements (there is no module loader)', async () => {
    const { exit, record } = await sandbox.run("import fs from 'node:fs';\nconsole.log(fs);");
    expect(exit).toBe('failed');
    expect(record.errors[0]).toContain('SyntaxError');
  });

  it('applies the configured default timeout when timeoutMs is null', async () => {
    const short = await startEnvironment({ poolSize: 1, defaultTimeoutMs: 300 });
    try {
      const exit = await short.env.execute({
        eid: 1,
        code: 'for (;;) {}',
        options: { timeoutMs: null },
        envConfig: {},
      });
      expect(exit).toBe('timeout');
    } finally {
      await short.env.teardown();
    }
  });
});
