import { describe, expect, it } from 'vitest';
import { startEnvironment, waitFor } from './recording-bindings';

const TRIVIAL = 'cyrnel.output({ ok: true });';
const tools = { 'svc.never': () => new Promise(() => {}), 'svc.echo': (p: unknown) => p };

describe('scheduling of awaiting executions', () => {
  it('fails promise-only waits at once, so they hold nothing', async () => {
    const sandbox = await startEnvironment({ poolSize: 2 }, tools);
    try {
      const attacks = await Promise.all(
        Array.from({ length: 6 }, () => sandbox.run('await new Promise(() => {});', 60_000)),
      );
      // Ended by the rule for waits nothing can settle, not by their 60 s deadline.
      expect(attacks.map((a) => a.exit)).toEqual(Array(6).fill('failed'));
      for (const attack of attacks) {
        expect(attack.record.errors).toEqual([expect.stringMatching(/a promise that nothing can settle/)]);
      }
      expect((await sandbox.run(TRIVIAL)).exit).toBe('success');
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('never shares a child with a computing execution, and queues once all slots compute', async () => {
    const sandbox = await startEnvironment({ poolSize: 1 }, tools);
    try {
      const looping = sandbox.run('for (;;) {}', 60_000);
      await waitFor(() => sandbox.of(1).states.includes('running'));
      const queued = sandbox.run(TRIVIAL);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sandbox.of(2).states).toEqual(['queued']);
      await sandbox.env.kill(1);
      expect((await looping).exit).toBe('canceled');
      expect((await queued).exit).toBe('success');
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('bounds the executions of one child by executionsPerChild', async () => {
    const sandbox = await startEnvironment({ poolSize: 1, executionsPerChild: 3 }, tools);
    try {
      const attack = 'await cyrnel.services.svc.tools.never.invoke({});';
      const runs = [1, 2, 3, 4].map(() => sandbox.run(attack, 60_000));
      await waitFor(() => sandbox.log.filter((e) => e.endsWith(':running')).length === 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sandbox.of(4).states).toEqual(['queued']);
      await sandbox.env.kill(1);
      await waitFor(() => sandbox.of(4).states.includes('running'));
      for (const eid of [2, 3, 4]) await sandbox.env.kill(eid);
      expect((await Promise.all(runs)).map((r) => r.exit)).toEqual(Array(4).fill('canceled'));
    } finally {
      await sandbox.env.teardown();
    }
  });

  it('fails every execution of a shared child that dies, keeping what each reported', async () => {
    const sandbox = await startEnvironment({ poolSize: 1 }, tools);
    try {
      const code = (n: number) =>
        `cyrnel.output({ n: ${n} }); console.log('waiting'); await cyrnel.services.svc.tools.never.invoke({});`;
      // The child sends a program's output just before its tool call leaves, so the call having
      // arrived (not the console line before it) says the output is with the host.
      const started = (eid: number) =>
        sandbox.of(eid).stdout === 'waiting\n' && sandbox.of(eid).calls.length === 1;
      const first = sandbox.run(code(1), 60_000);
      await waitFor(() => started(1));
      const second = sandbox.run(code(2), 60_000);
      await waitFor(() => started(2));
      const [pid] = sandbox.children.live();
      process.kill(pid as number, 'SIGKILL');
      for (const [n, run] of [
        [1, await first],
        [2, await second],
      ] as const) {
        expect(run.exit).toBe('failed');
        // A kill from outside names no cause: each one that wrote something fails as crashed.
        expect(run.record.errors[0]).toMatch(
          /exited unexpectedly \(SIGKILL\).*1 other execution\(s\) of the same key sharing the sandbox, any of which may have caused it; it had already made tool calls or written output/,
        );
        expect(run.record.reasons).toEqual(['sandbox_crashed']);
        expect(run.record.output).toEqual({ n });
      }
      expect((await sandbox.run(TRIVIAL)).exit).toBe('success');
    } finally {
      await sandbox.env.teardown();
    }
  });
});
