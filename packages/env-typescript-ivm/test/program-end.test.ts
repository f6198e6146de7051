import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type startEnvironment as Start, startEnvironment } from './recording-bindings';

// One child, one warm isolate: whatever a finished program leaves behind meets the next one.
let sandbox: Awaited<ReturnType<typeof Start>>;

beforeAll(async () => {
  sandbox = await startEnvironment(
    { poolSize: 1, memoryLimitMb: 64 },
    { 'svc.echo': (p) => p, 'svc.never': () => new Promise(() => {}) },
  );
});
afterAll(() => sandbox.env.teardown());

/** Keeps the isolate busy for `ms` so host answers and timers land while the program is finishing. */
const busy = (ms: number) => `{ const until = Date.now() + ${ms}; while (Date.now() < until) {} }`;

/** The next program runs normally, on the same child (the host never had to kill it). */
async function expectNextRunsNormally() {
  const before = sandbox.children.live();
  const { exit, record } = await sandbox.run(
    "await new Promise((r) => setTimeout(r, 20)); console.log('next'); cyrnel.output({ ok: true });",
    10_000,
  );
  expect(exit).toBe('success');
  expect(record.output).toEqual({ ok: true });
  expect(record.stdout).toBe('next\n');
  expect(sandbox.children.live()).toEqual(before);
  expect(sandbox.children.exited()).toEqual([]);
}

describe('after a program ends', () => {
  it('never wakes it with the rejection of a call still pending', async () => {
    const { exit, record } = await sandbox.run(
      '(async () => { try { await cyrnel.services.svc.tools.never.invoke({}); } catch {} for (;;) {} })();',
    );
    expect(exit).toBe('success');
    expect(record.errors).toEqual([]);
    await expectNextRunsNormally();
  });

  it('never runs the continuation of a call answered while it was finishing', async () => {
    const { exit, record } = await sandbox.run(`
      cyrnel.services.svc.tools.echo.invoke({}).then(() => { console.log('late'); for (;;) {} });
      ${busy(100)}
    `);
    expect(exit).toBe('success');
    expect(record.calls).toHaveLength(1);
    await expectNextRunsNormally();
    expect(record.stdout).toBe('');
  });

  it('never runs a timer that fired while it was finishing', async () => {
    const { exit, record } = await sandbox.run(`
      setTimeout(() => { console.log('late'); for (;;) {} }, 0);
      ${busy(100)}
    `);
    expect(exit).toBe('success');
    await expectNextRunsNormally();
    expect(record.stdout).toBe('');
  });

  it('drops timers still pending', async () => {
    const first = await sandbox.run(`
      setTimeout(() => console.log('dropped'), 0);
      setTimeout(() => console.log('dropped too'), 10);
      cyrnel.output({ done: true });
    `);
    expect(first.exit).toBe('success');
    await expectNextRunsNormally();
    expect(first.record.stdout).toBe('');
    expect(first.record.output).toEqual({ done: true });
  });

  it('offers no FinalizationRegistry, whose callbacks would run after the end', async () => {
    const { record } = await sandbox.run(
      'cyrnel.output({ type: typeof FinalizationRegistry, weakRef: typeof WeakRef });',
    );
    expect(record.output).toEqual({ type: 'undefined', weakRef: 'function' });
  });
});
