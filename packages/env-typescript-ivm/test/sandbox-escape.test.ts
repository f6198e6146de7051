import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type startEnvironment as Start, startEnvironment } from './recording-bindings';

let sandbox: Awaited<ReturnType<typeof Start>>;

beforeAll(async () => {
  sandbox = await startEnvironment({ poolSize: 1 }, { 'svc.echo': (p) => p });
});
afterAll(() => sandbox.env.teardown());

async function probe(code: string): Promise<Record<string, unknown>> {
  const { exit, record } = await sandbox.run(code);
  expect(record.errors).toEqual([]);
  expect(exit).toBe('success');
  return record.output;
}

describe('sandbox escape', () => {
  it('exposes no host globals', async () => {
    const output = await probe(`
      const names = ['process', 'require', 'module', 'Buffer', 'fetch', 'global', 'setInterval', 'setImmediate',
        'queueMicrotask', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', '__cyrnelSync', '__cyrnelAsync', 'ivm'];
      cyrnel.output({ present: names.filter((n) => typeof (globalThis as any)[n] !== 'undefined'),
        own: Object.getOwnPropertyNames(globalThis).filter((n) => /cyrnel|ivm|host/i.test(n)) });
    `);
    expect(output.present).toEqual([]);
    expect(output.own).toEqual(['cyrnel']);
  });

  it('keeps constructor chains inside the isolate', async () => {
    const output = await probe(`
      const results: string[] = [];
      const tries = [
        () => (cyrnel.output as any).constructor('return typeof process')(),
        () => (console.log as any).constructor.constructor('return typeof require')(),
        () => (cyrnel.services as any).x.tools.y.invoke.constructor('return typeof Buffer')(),
        () => Object.getPrototypeOf(async () => {}).constructor('return typeof process')(),
        () => (function (this: unknown) { return typeof this; })(),
        () => eval('typeof process'),
        () => new Function('return typeof globalThis.process')(),
        () => (0, eval)('this === globalThis'),
      ];
      for (const t of tries) { try { const r = t(); results.push(String(r instanceof Promise ? 'promise' : r)); } catch (e) { results.push('threw'); } }
      cyrnel.output({ results });
    `);
    expect(output.results).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'promise',
      'undefined',
      'undefined',
      'undefined',
      'true',
    ]);
  });

  it('gives copies from tool results, not host objects', async () => {
    const output = await probe(`
      const r: any = await cyrnel.services.svc.tools.echo.invoke({ nested: { a: [1] } });
      const viaCtor = r.constructor.constructor('return typeof process')();
      r.nested.a.push(2);
      cyrnel.output({ viaCtor, sameObject: r.constructor === Object, r });
    `);
    expect(output).toEqual({ viaCtor: 'undefined', sameObject: true, r: { nested: { a: [1, 2] } } });
  });

  it('freezes the cyrnel global and its members', async () => {
    const output = await probe(`
      const attempts = [
        () => { (globalThis as any).cyrnel = 1; },
        () => { (cyrnel as any).output = () => {}; },
        () => { (cyrnel.discover as any).tool = 1; },
        () => { delete (globalThis as any).cyrnel; },
        () => { Object.defineProperty(cyrnel.services, 'x', { value: 1 }); },
      ];
      const threw = attempts.map((a) => { try { a(); return false; } catch { return true; } });
      cyrnel.output({ threw, frozen: Object.isFrozen(cyrnel) && Object.isFrozen(cyrnel.discover) });
    `);
    expect(output).toEqual({ threw: [true, true, true, true, true], frozen: true });
  });

  it('does not let prototype pollution or globals leak into the next execution', async () => {
    await probe(`
      (Object.prototype as any).polluted = 'yes';
      (Array.prototype as any).push = () => 0;
      (globalThis as any).leftover = 42;
      JSON.stringify = () => 'hacked';
      cyrnel.output({ ok: true });
    `);
    const output = await probe(`
      cyrnel.output({ polluted: ({} as any).polluted ?? null, leftover: (globalThis as any).leftover ?? null,
        push: [1].push(2), json: JSON.stringify({ a: 1 }) });
    `);
    expect(output).toEqual({ polluted: null, leftover: null, push: 2, json: '{"a":1}' });
  });

  it('keeps the runtime working when user code patches intrinsics it relies on', async () => {
    const { exit, record } = await sandbox.run(`
      (Object.prototype as any).copy = false; (Object.prototype as any).reference = true;
      Array.prototype.push = () => { throw new Error('patched'); };
      JSON.stringify = () => { throw new Error('patched'); };
      Reflect.apply = () => { throw new Error('patched'); };
      const r = await cyrnel.services.svc.tools.echo.invoke({ a: 1 });
      console.log('still', r);
      cyrnel.output({ r });
    `);
    expect(record.errors).toEqual([]);
    expect(exit).toBe('success');
    expect(record.output).toEqual({ r: { a: 1 } });
  });

  it('cannot reach the bindings through stack traces or function sources', async () => {
    const output = await probe(`
      let stack = '';
      try { await cyrnel.services.nope.tools.nope.invoke({}); } catch (e: any) { stack = String(e.stack); }
      const sources = [String(cyrnel.output), String(console.log), String(cyrnel.discover.tool)];
      const caller = (() => { try { return typeof (cyrnel.output as any).caller; } catch { return 'threw'; } })();
      cyrnel.output({ hostPaths: /node_modules|dist\\/|sandbox-child|isolated-vm/.test(stack), sourceLeaks: sources.some((s) => s.includes('bindings')), caller });
    `);
    expect(output).toEqual({ hostPaths: false, sourceLeaks: false, caller: 'threw' });
  });
});
