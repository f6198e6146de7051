import { describe, expect, it } from 'vitest';
import type { RunJob } from '../shared/run-job';
import { createIsolateRunner, type RunnerHooks } from './isolate-runner';

const job = (code: string, timeoutMs = 10_000): RunJob => ({
  code,
  timeoutMs,
  stdoutCapBytes: 4096,
  stderrCapBytes: 4096,
  outputCapBytes: 4096,
});

/** Hooks that keep the output patches and answer every host call with `value`. */
function recording(value: unknown = 7) {
  const outputs: [string, unknown][] = [];
  const hooks: RunnerHooks = {
    call: async () => value,
    write: () => {},
    // A JSON array of [key, value] entries.
    output: (json) => outputs.push(...(JSON.parse(json) as [string, unknown][])),
  };
  return { hooks, output: () => Object.fromEntries(outputs) };
}

describe('createIsolateRunner warm contexts', () => {
  it('runs the next execution in the context it made ahead, with nothing of the execution before', async () => {
    const runner = createIsolateRunner({ memoryLimitMb: 64 });
    try {
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
    } finally {
      runner.dispose();
    }
  });

  it('makes nothing while an execution runs, and a new isolate after one was stopped', async () => {
    const runner = createIsolateRunner({ memoryLimitMb: 64 });
    try {
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
    } finally {
      runner.dispose();
    }
  });

  it('answers a late output of an execution that ended as ended, in the context made ahead too', async () => {
    const runner = createIsolateRunner({ memoryLimitMb: 64 });
    try {
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
    } finally {
      runner.dispose();
    }
  });
});
