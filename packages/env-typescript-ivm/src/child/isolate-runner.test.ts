import { describe, expect, it } from 'vitest';
import type { RunJob } from '../shared/run-job';
import { createIsolateRunner, type IsolateRunner, type RunnerHooks } from './isolate-runner';

const job = (code: string, timeoutMs = 10_000, caps: Partial<RunJob> = {}): RunJob => ({
  code,
  timeoutMs,
  stdoutCapBytes: 4096,
  stderrCapBytes: 4096,
  outputCapBytes: 4096,
  ...caps,
});

/** Run `test` with a fresh runner of a 64 MB isolate, disposed after. */
async function withRunner(test: (runner: IsolateRunner) => Promise<void>): Promise<void> {
  const runner = createIsolateRunner({ memoryLimitMb: 64 });
  try {
    await test(runner);
  } finally {
    runner.dispose();
  }
}

/** Hooks that keep the output patches and answer every host call with `value`. */
function recording(value: unknown = 7) {
  const outputs: [string, unknown][] = [];
  const streams = { stdout: '', stderr: '' };
  const hooks: RunnerHooks = {
    call: async () => value,
    write: (stream, text) => {
      streams[stream] += text;
    },
    // A JSON array of [key, value] entries.
    output: (json) => outputs.push(...(JSON.parse(json) as [string, unknown][])),
  };
  return { hooks, output: () => Object.fromEntries(outputs), streams };
}

describe('createIsolateRunner warm contexts', () => {
  it('runs the next execution in the context it made ahead, with nothing of the execution before', () =>
    withRunner(async (runner) => {
      expect(runner.warm()).toBe(true);
      // Made once: warming again keeps it.
      expect(runner.warm()).toBe(true);
      const first = recording();
      expect(
        await runner.run(
          job(`(globalThis as any).leftover = 1; (Object.prototype as any).polluted = 1;
          cyrnel.output({ got: await cyrnel.services.s.tools.t.invoke({}) });`),
          first.hooks,
        ),
      ).toMatchObject({ exit: 'success' });
      expect(first.output()).toEqual({ got: 7 });
      expect(runner.warm()).toBe(true);
      const second = recording();
      await runner.run(
        job(`cyrnel.output({ leftover: typeof (globalThis as any).leftover, polluted: typeof ({} as any).polluted,
        frozen: Object.isFrozen(cyrnel) });`),
        second.hooks,
      );
      expect(second.output()).toEqual({ leftover: 'undefined', polluted: 'undefined', frozen: true });
    }));

  it('makes nothing while an execution runs, and a new isolate after one was stopped', () =>
    withRunner(async (runner) => {
      let release: (value: unknown) => void = () => {};
      const held = recording();
      held.hooks.call = () => new Promise((resolve) => (release = resolve));
      const running = runner.run(
        job('cyrnel.output({ got: await cyrnel.invoke("s", "t", {}) });'),
        held.hooks,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(runner.warm()).toBe(false);
      release(3);
      expect(await running).toMatchObject({ exit: 'success' });
      expect(held.output()).toEqual({ got: 3 });

      // A deadline disposes the isolate with the context made for it; warming makes a new one.
      expect(runner.warm()).toBe(true);
      expect(await runner.run(job('for (;;) {}', 200), recording().hooks)).toMatchObject({ exit: 'timeout' });
      expect(runner.warm()).toBe(true);
      const after = recording();
      expect(await runner.run(job('cyrnel.output({ ok: true });'), after.hooks)).toMatchObject({
        exit: 'success',
      });
      expect(after.output()).toEqual({ ok: true });
    }));

  it('answers a late output of an execution that ended as ended, in the context made ahead too', () =>
    withRunner(async (runner) => {
      runner.warm();
      const late = recording();
      // The timer outlives the program: the runner drops it with the isolate, and nothing reaches the hooks.
      expect(
        await runner.run(
          job('setTimeout(() => cyrnel.output({ late: true }), 20); cyrnel.output({ early: true });'),
          late.hooks,
        ),
      ).toMatchObject({ exit: 'success' });
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(late.output()).toEqual({ early: true });
    }));
});

describe('createIsolateRunner writes sent without waiting', () => {
  it('keeps every line in order, and cuts the stream at its cap exactly once lines may not fit', () =>
    withRunner(async (runner) => {
      const many = recording();
      // More lines than may go without waiting: the rest wait, nothing is lost or reordered.
      await runner.run(
        job('for (let i = 0; i < 3000; i++) console.log("line", i);', 10_000, { stdoutCapBytes: 1 << 20 }),
        many.hooks,
      );
      const lines = many.streams.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(3000);
      expect(lines.every((line, i) => line === `line ${i}`)).toBe(true);

      const capped = recording();
      await runner.run(job('for (let i = 0; i < 500; i++) console.log("x".repeat(20), i);'), capped.hooks);
      const [kept, marker] = capped.streams.stdout.split('\n[stdout truncated');
      expect(Buffer.byteLength(kept ?? '')).toBeLessThanOrEqual(4096);
      expect(Buffer.byteLength(`${kept}\n`)).toBeGreaterThan(4096 - 30);
      expect(marker).toBe(': limit of 4096 bytes reached]\n');
      expect(kept?.split('\n').slice(0, 3)).toEqual([
        `${'x'.repeat(20)} 0`,
        `${'x'.repeat(20)} 1`,
        `${'x'.repeat(20)} 2`,
      ]);
    }));

  it('merges output patches, refuses the one over the cap, and hands everything before a call over first', () =>
    withRunner(async (runner) => {
      const run = recording();
      let seenAtCall: Record<string, unknown> = {};
      let stdoutAtCall = '';
      run.hooks.call = async () => {
        seenAtCall = run.output();
        stdoutAtCall = run.streams.stdout;
        return 1;
      };
      const result = await runner.run(
        job(`
        cyrnel.output({ a: 1, b: "two" });
        console.log("before the call");
        cyrnel.output({ a: 3 });
        await cyrnel.invoke("s", "t", {});
        let refused = "";
        try { cyrnel.output({ big: "y".repeat(5000) }); } catch (e) { refused = String((e as Error).message); }
        cyrnel.output({ refused: refused.slice(0, 40), é: "ü" });
      `),
        run.hooks,
      );
      expect(result).toMatchObject({ exit: 'success' });
      expect(seenAtCall).toEqual({ a: 3, b: 'two' });
      expect(stdoutAtCall).toBe('before the call\n');
      expect(run.output()).toEqual({
        a: 3,
        b: 'two',
        refused: 'cyrnel.output: the output would grow to ',
        é: 'ü',
      });
    }));

  it('keeps what a program wrote before its deadline or a kill ended it', () =>
    withRunner(async (runner) => {
      const timedOut = recording();
      const code = 'console.log("before"); cyrnel.output({ step: 1 }); for (;;) {}';
      expect(await runner.run(job(code, 300), timedOut.hooks)).toMatchObject({ exit: 'timeout' });
      expect(timedOut.streams.stdout).toBe('before\n');
      expect(timedOut.output()).toEqual({ step: 1 });

      const killed = recording();
      const running = runner.run(job(code), killed.hooks);
      // Killed while it computes, once its line is here (a loaded machine may take a while).
      for (let waited = 0; killed.streams.stdout === '' && waited < 5_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      runner.kill();
      expect(await running).toMatchObject({ exit: 'canceled' });
      expect(killed.streams.stdout).toBe('before\n');
      expect(killed.output()).toEqual({ step: 1 });
    }));
});
